"""Secrets from files: `NAME_FILE=/path` stands for `NAME=<the file's contents>` (issue #29).

Docker secrets (`/run/secrets/...`), Kubernetes Secret volumes and systemd credentials hand a
process its secrets as files; the agent already read its key that way. The CLI calls
`load_secret_files()` once before any command runs, so the bot's Slack tokens, its database URL
and the per-host agent keys the inventory names can all come from files:

- which variables: the bot's secrets (`BOT_SECRETS`) and any `*_SECRET` / `*_TOKEN` / `*_PASSWORD`
  one (the inventory's `secret_env` names end in `_SECRET` by convention); not the agent's own
  key pair, which `agent serve` reads itself (a missing rotation-key file is fine there);
- `NAME` and `NAME_FILE` both set is refused (which one would win is a guess);
- the file must exist, be readable, be at most `MAX_SECRET_BYTES`, and not be empty; surrounding
  whitespace (the trailing newline `echo` writes) is dropped. Each problem is one ConfigError
  naming the variable.
"""

from __future__ import annotations

import os
import re
from collections.abc import MutableMapping
from pathlib import Path

from bot.errors import ConfigError

SUFFIX = "_FILE"
BOT_SECRETS = frozenset({"SLACK_BOT_TOKEN", "SLACK_APP_TOKEN", "SLACK_SIGNING_SECRET",
                         "GPU_ADVISOR_DATABASE_URL"})
# The agent's own: bot/cli/agent.py reads these (a missing *_NEXT_FILE means "no rotation").
AGENT_OWN = frozenset({"GPU_ADVISOR_AGENT_SECRET", "GPU_ADVISOR_AGENT_SECRET_NEXT"})
_SECRET_NAME = re.compile(r"^[A-Z_][A-Z0-9_]*_(SECRET|TOKEN|PASSWORD)$")
MAX_SECRET_BYTES = 64 * 1024


class SecretFileError(ConfigError):
    """A `NAME_FILE` variable that cannot stand for NAME; the message names the variable."""


def _wanted(name: str) -> bool:
    return name not in AGENT_OWN and (name in BOT_SECRETS or bool(_SECRET_NAME.match(name)))


def read_secret_file(variable: str, path_text: str) -> str:
    """The secret in the file `variable` (a NAME_FILE) names, stripped; SecretFileError otherwise."""
    path = Path(path_text.strip())
    try:
        size = path.stat().st_size
        if size > MAX_SECRET_BYTES:
            raise SecretFileError(f"{variable}: {path} is {size} bytes; a secret file holds at most "
                                  f"{MAX_SECRET_BYTES}")
        with path.open("rb") as handle:
            raw = handle.read(MAX_SECRET_BYTES + 1)
    except FileNotFoundError:
        raise SecretFileError(f"{variable}: {path} does not exist") from None
    except IsADirectoryError:
        raise SecretFileError(f"{variable}: {path} is a directory, not a file") from None
    except OSError as exc:
        raise SecretFileError(f"{variable}: cannot read {path}: {exc.strerror or exc}") from exc
    try:
        value = raw.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise SecretFileError(f"{variable}: {path} is not UTF-8 text") from None
    if not value:
        raise SecretFileError(f"{variable}: {path} is empty")
    return value


def load_secret_files(environ: MutableMapping[str, str] | None = None) -> list[str]:
    """Set each wanted NAME from its NAME_FILE; the names set, in order. Raises SecretFileError."""
    env = os.environ if environ is None else environ
    loaded = []
    for variable in sorted(k for k in env if k.endswith(SUFFIX)):
        name = variable[: -len(SUFFIX)]
        if not _wanted(name) or not env[variable].strip():
            continue
        if env.get(name):
            raise SecretFileError(f"{variable}: {name} is set as well; set one of them, not both")
        env[name] = read_secret_file(variable, env[variable])
        loaded.append(name)
    return loaded
