"""YAML loading that remembers where each value came from, for errors that name file:line:column."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

Loc = tuple[int | str, ...]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class YamlDocument:
    path: Path
    data: Any
    positions: dict[Loc, tuple[int, int]] = field(default_factory=dict)

    def position(self, loc: Loc) -> tuple[int, int]:
        """1-based (line, column) of the deepest known node on `loc`."""
        loc = tuple(loc)
        while loc:
            if loc in self.positions:
                return self.positions[loc]
            loc = loc[:-1]
        return self.positions.get((), (1, 1))

    def where(self, loc: Loc) -> str:
        line, col = self.position(loc)
        return f"{self.path}:{line}:{col}"


class YamlError(ValueError):
    """A YAML file that does not parse or validate. The message names file:line:column."""


def _walk(node: yaml.Node, loc: Loc, positions: dict[Loc, tuple[int, int]]) -> None:
    positions[loc] = (node.start_mark.line + 1, node.start_mark.column + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key = key_node.value
            _walk(value_node, loc + (key,), positions)
            # Point a field's errors at its key, which is where an editor's cursor should go.
            positions[loc + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _walk(item, loc + (index,), positions)


def load_yaml(path: Path | str, text: str | None = None) -> YamlDocument:
    path = Path(path)
    if text is None:
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise YamlError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        # Parse once, with libyaml when available: keep the node tree for positions and
        # construct the data from that same tree.
        loader = _LOADER(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlError(f"{where}: YAML syntax error: {problem}") from exc
    positions: dict[Loc, tuple[int, int]] = {}
    if node is not None:
        _walk(node, (), positions)
    return YamlDocument(path=path, data=data, positions=positions)


def describe_validation_error(
    doc: YamlDocument, exc: ValidationError, base: Loc = (), label: str | None = None
) -> list[str]:
    """One line per pydantic error: `file:line:col: [label] field.path: message`."""
    lines = []
    for err in exc.errors():
        loc = base + tuple(err["loc"])
        dotted = ".".join(str(p) for p in err["loc"]) or "(entry)"
        prefix = f"{label}: " if label else ""
        lines.append(f"{doc.where(loc)}: {prefix}{dotted}: {err['msg']}")
    return lines
