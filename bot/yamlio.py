"""YAML loading that remembers where each value came from, for errors that name file:line:column."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from bot.errors import ConfigError

Loc = tuple[int | str, ...]
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class YamlDocument:
    path: Path
    data: Any
    positions: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    # The parsed node tree, kept until a position is first asked for: most files load without an
    # error to place, and recording every node's position up front was a fifth of reading the
    # 420 KB price table on a first start.
    root: yaml.Node | None = field(default=None, repr=False, compare=False)

    def __getstate__(self) -> dict:
        """Pickled (a rule base in the start-up cache holds its files' documents) with the positions
        recorded and without the node tree, as before it was kept."""
        self.position(())
        return dict(self.__dict__)

    def position(self, loc: Loc) -> tuple[int, int]:
        """1-based (line, column) of the deepest known node on `loc`."""
        if self.root is not None:
            _record_positions(self.root, self.positions)
            self.root = None
        loc = tuple(loc)
        while loc:
            if loc in self.positions:
                return self.positions[loc]
            loc = loc[:-1]
        return self.positions.get((), (1, 1))

    def where(self, loc: Loc) -> str:
        line, col = self.position(loc)
        return f"{self.path}:{line}:{col}"


class YamlError(ConfigError):
    """A YAML file that does not parse or validate. The message names file:line:column."""


# Bounds for every YAML file the bot reads (rules, knowledge, prices, inventory): the biggest
# shipped file is ~26 KB and ~1,300 nodes, nested 6 deep. See docs/operations.md, "Limits".
MAX_YAML_BYTES = 4 * 1024 * 1024
MAX_YAML_DEPTH = 64
MAX_YAML_NODES = 200_000  # counted with aliases expanded: what a consumer walking the data would see


def _walk(root: yaml.Node, path: Path) -> None:
    """Refuse, iteratively, documents nested deeper than MAX_YAML_DEPTH or bigger than
    MAX_YAML_NODES once aliases are expanded (an alias bomb)."""
    stack: list[tuple[yaml.Node, int]] = [(root, 0)]
    visited = 0
    while stack:
        node, depth = stack.pop()
        visited += 1
        if visited > MAX_YAML_NODES:
            line, col = node.start_mark.line + 1, node.start_mark.column + 1
            raise YamlError(f"{path}:{line}:{col}: more than {MAX_YAML_NODES} values once aliases are expanded "
                            "(an alias bomb?)")
        if depth > MAX_YAML_DEPTH:
            line, col = node.start_mark.line + 1, node.start_mark.column + 1
            raise YamlError(f"{path}:{line}:{col}: nested more than {MAX_YAML_DEPTH} levels deep")
        if isinstance(node, yaml.MappingNode):
            stack += [(value_node, depth + 1) for _, value_node in reversed(node.value)]
        elif isinstance(node, yaml.SequenceNode):
            stack += [(value_node, depth + 1) for value_node in reversed(node.value)]


def _record_positions(root: yaml.Node, positions: dict[Loc, tuple[int, int]]) -> None:
    """Each value's position by its path in the document (a tree `_walk` has bounded)."""
    stack: list[tuple[yaml.Node, Loc, tuple[int, int] | None]] = [(root, (), None)]
    while stack:
        node, loc, key_mark = stack.pop()
        # A field's errors point at its key, which is where an editor's cursor should go.
        positions[loc] = key_mark or (node.start_mark.line + 1, node.start_mark.column + 1)
        if isinstance(node, yaml.MappingNode):
            for key_node, value_node in reversed(node.value):
                mark = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                stack.append((value_node, (*loc, key_node.value), mark))
        elif isinstance(node, yaml.SequenceNode):
            for index in range(len(node.value) - 1, -1, -1):
                stack.append((node.value[index], (*loc, index), None))


def _bad_scalar(path: Path, root: yaml.Node, exc: Exception) -> str:
    """Where a scalar YAML could not construct is (a timestamp that is no real date, mostly)."""
    stack = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            if node.tag == "tag:yaml.org,2002:timestamp":
                try:
                    yaml.SafeLoader("").construct_yaml_timestamp(node)
                except (ValueError, OverflowError) as problem:
                    line, col = node.start_mark.line + 1, node.start_mark.column + 1
                    return f"{path}:{line}:{col}: {node.value!r} is not a valid date or time ({problem})"
        elif isinstance(node, yaml.MappingNode):
            stack += [value for _, value in node.value] + [key for key, _ in node.value]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return f"{path}: a value could not be read: {exc}"


def containing_root(path: Path, roots) -> Path | None:
    """The folder among `roots` that `path` was found under (by its name, before links), or None."""
    for root in roots or ():
        root = Path(root)
        if root.is_dir() and Path(path).is_relative_to(root):
            return root
    return None


def read_bounded(path: Path | str, root: Path | str | None = None, limit: int = MAX_YAML_BYTES) -> bytes:
    """The bytes of a regular file, at most `limit` of them, or a YamlError saying why not.

    Never blocks and never reads without end: the file is opened non-blocking (a FIFO cannot hang
    the reader) and must be a regular file once open (not a FIFO, a device such as /dev/zero, a
    socket), at most `limit` bytes are read whatever its size claims, and with `root` the file,
    links followed, must lie inside that folder (a link out of the rules folder is refused)."""
    path = Path(path)
    if root is not None:
        try:
            real, real_root = path.resolve(strict=True), Path(root).resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # missing, or a link loop
            raise YamlError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from exc
        if not real.is_relative_to(real_root):
            raise YamlError(f"{path}: links outside {root} (to {real}); only files inside the folder are read")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise YamlError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise YamlError(f"{path}: not a regular file (a FIFO, device or socket); only regular files are read")
        if info.st_size > limit:
            raise YamlError(f"{path}: {info.st_size} bytes; YAML files are read up to {limit} bytes")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise YamlError(f"{path}: over {limit} bytes; YAML files are read up to {limit} bytes")
    except OSError as exc:
        raise YamlError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    finally:
        os.close(fd)
    return b"".join(chunks)


def read_text(path: Path | str, root: Path | str | None = None, limit: int = MAX_YAML_BYTES) -> str:
    """`read_bounded` decoded as UTF-8; a file that is not UTF-8 is a YamlError naming the byte."""
    data = read_bounded(path, root, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlError(f"{path}: not UTF-8 text: {exc.reason} at byte {exc.start}") from exc


def load_yaml(path: Path | str, text: str | None = None, root: Path | str | None = None) -> YamlDocument:
    """Parse one YAML file, bounded in size, depth and alias expansion; errors name file:line:col.
    The file is read with `read_text` (regular files only, inside `root` when given)."""
    path = Path(path)
    if text is None:
        text = read_text(path, root)
    if len(text) > MAX_YAML_BYTES:
        raise YamlError(f"{path}: {len(text)} characters; YAML files are read up to {MAX_YAML_BYTES}")
    node = None
    try:
        # Parse once, with libyaml when available: keep the node tree for positions and
        # construct the data from that same tree, only once the tree is known to be bounded
        # (the constructor recurses, and follows aliases).
        loader = _LOADER(text)
        try:
            node = loader.get_single_node()
            data = None
            if node is not None:
                _walk(node, path)
                try:
                    data = loader.construct_document(node)
                except (ValueError, OverflowError) as exc:  # e.g. a date that does not exist: 2026-02-30
                    raise YamlError(_bad_scalar(path, node, exc)) from exc
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc)
        raise YamlError(f"{where}: YAML syntax error: {problem}") from exc
    except RecursionError as exc:  # the pure-Python parser, without libyaml's own nesting limit
        raise YamlError(f"{path}: nested more than {MAX_YAML_DEPTH} levels deep") from exc
    return YamlDocument(path=path, data=data, root=node)


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
