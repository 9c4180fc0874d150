"""The host inventory (YAML): which agents exist, their secrets' env names, who may check them.

    hosts:
      - name: gpu-node-7
        url: http://10.0.0.7:8700
        secret_env: GPU_NODE_7_SECRET
        allow: [U012ABCDEF, S0INFRA]          # Slack user ids or user-group ids
        expect: {gpu: h100-sxm, count: 8}     # optional
        cuda: "13.0"                          # optional: the team's CUDA for this host
        deployment: datacenter                # optional (default datacenter)
        allow_plain_http: false               # optional: see below

A plain `http://` URL to another machine (anything but a literal loopback address) loads, since
requests and responses are HMAC-signed either way, but it is logged as a warning naming the line:
without TLS the probe reports travel readable by anyone on the path. Use `https://`, or say
`allow_plain_http: true` for a host on a network you trust, which silences the warning.

A top-level `defaults:` may give `cuda` and `deployment` for every host. Only names in the
inventory can be checked: a raw address or URL is refused, so the bot cannot be pointed anywhere.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, field_validator

from bot.agent_contract import is_loopback_ip
from bot.errors import ConfigError, ServiceError
from bot.models import Deployment
from bot.yamlio import YamlError, describe_validation_error, load_yaml

INVENTORY_ENV = "GPU_ADVISOR_INVENTORY"
log = logging.getLogger(__name__)
HOST_NAME = r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$"


class InventoryError(ConfigError):
    """An inventory that does not load; the message names file:line and the field."""


class DispatchError(ServiceError):
    """A host check that could not be done: unknown host, unreachable or misbehaving agent."""


class UnknownHostError(DispatchError):
    """A name that is not in the inventory. Its message never lists the inventory's hosts."""


class Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gpu: str | None = None
    count: int | None = Field(default=None, ge=1, le=1024)


class ServingTarget(BaseModel):
    model_config = ConfigDict(extra="forbid")

    url: str = "http://127.0.0.1:8000"
    model: str = "default"
    concurrency: int = Field(default=4, ge=1, le=256)
    requests: int = Field(default=32, ge=1, le=10_000)


class Host(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(pattern=HOST_NAME)
    url: str
    secret_env: str = Field(pattern=r"^[A-Z_][A-Z0-9_]*$")
    allow: list[str] = Field(min_length=1)
    expect: Expect | None = None
    cuda: str | None = None
    deployment: Deployment | None = None
    serving: ServingTarget | None = None
    timeout_s: float = Field(default=10.0, gt=0, le=300, description="per HTTP request")
    job_deadline_s: float | None = Field(default=None, gt=0, le=3600,
                                         description="a whole job (probe, benchmark) on this host; default the "
                                                     "checker's")
    allow_plain_http: bool = Field(default=False, description="accept http:// to another machine without a warning")

    @field_validator("url")
    @classmethod
    def _agent_url(cls, value: str) -> str:
        parts = urlsplit(value)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"{value!r} is not an http(s)://host:port agent URL")
        if parts.username or parts.password or parts.query or parts.fragment or parts.path not in ("", "/"):
            raise ValueError(f"{value!r}: an agent URL has no credentials, path, query or fragment")
        return value.rstrip("/")

    @field_validator("cuda")
    @classmethod
    def _cuda(cls, value: str | None) -> str | None:
        if value is not None and not re.fullmatch(r"\d+(\.\d+){0,2}", value):
            raise ValueError(f"CUDA version {value!r} is not of the form 12.4")
        return value

    def plain_http_elsewhere(self) -> bool:
        """http:// to anything but a literal loopback address ("localhost" is a name, not an address)."""
        parts = urlsplit(self.url)
        return parts.scheme == "http" and not is_loopback_ip(parts.hostname)

    def secret(self) -> bytes:
        value = os.environ.get(self.secret_env, "")
        if not value:
            raise DispatchError(f"{self.name}: the secret environment variable {self.secret_env} is not set")
        return value.encode()


class Defaults(BaseModel):
    model_config = ConfigDict(extra="forbid")

    cuda: str | None = None
    deployment: Deployment = "datacenter"


class Inventory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    hosts: list[Host] = Field(default_factory=list)
    defaults: Defaults = Field(default_factory=Defaults)
    _by_name: dict[str, Host] | None = PrivateAttr(default=None)

    def hosts_for(self, user_id: str, groups: list[str] = []) -> list[Host]:  # noqa: B006 - the agreed signature
        """The hosts this user (or one of their groups) may check."""
        who = {user_id, *groups}
        return [h for h in self.hosts if who & set(h.allow)]

    def get(self, name: str) -> Host:
        """The inventory host called `name`; raw addresses and unknown names are refused."""
        if self._by_name is None or len(self._by_name) != len(self.hosts):
            self._by_name = {h.name: h for h in self.hosts}  # one lookup per check: no scan of the fleet
        host = self._by_name.get(name)
        if host is not None:
            return host
        if "://" in name or re.fullmatch(r"[\d.:\[\]]+", name) or "/" in name or (":" in name):
            raise DispatchError(f"{name!r} looks like an address; only inventory host names can be checked")
        # The inventory's names are not listed: whoever asks may not be allowed to know them.
        raise UnknownHostError(f"unknown host {name[:100]!r}: not in the inventory")

    def authorize(self, name: str, user_id: str, groups: list[str] = []) -> Host:  # noqa: B006
        host = self.get(name)
        if not ({user_id, *groups} & set(host.allow)):
            raise PermissionError(f"{user_id} may not check {name}")
        return host

    def team_cuda(self, host: Host) -> str | None:
        return host.cuda or self.defaults.cuda

    def deployment(self, host: Host) -> str:
        return host.deployment or self.defaults.deployment


def load_inventory(path: Path | str) -> Inventory:
    try:
        doc = load_yaml(path)
    except YamlError as exc:
        raise InventoryError(str(exc)) from exc
    if not isinstance(doc.data, dict):
        raise InventoryError(f"{doc.where(())}: expected a mapping with a `hosts:` list")
    try:
        inventory = Inventory.model_validate(doc.data)
    except ValidationError as exc:
        raise InventoryError("\n".join(describe_validation_error(doc, exc))) from exc
    seen: set[str] = set()
    for index, host in enumerate(inventory.hosts):
        if host.name in seen:
            raise InventoryError(f"{doc.where(('hosts', index, 'name'))}: duplicate host name {host.name!r}")
        seen.add(host.name)
        if host.plain_http_elsewhere() and not host.allow_plain_http:
            log.warning("%s: %s: %s is plain HTTP to another machine: requests and replies are signed, but probe "
                        "reports travel unencrypted; use https:// (agent --tls-cert/--tls-key) or set "
                        "`allow_plain_http: true` for this host", doc.where(("hosts", index, "url")), host.name, host.url)
    return inventory


def inventory_path(explicit: str | None) -> Path:
    value = explicit or os.environ.get(INVENTORY_ENV)
    if not value:
        raise InventoryError(f"no inventory: pass --inventory PATH or set {INVENTORY_ENV}")
    return Path(value)
