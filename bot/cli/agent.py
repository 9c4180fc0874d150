"""`gpu-advisor agent serve`: run the host agent."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from bot.errors import InputError


# A key in a file instead of the environment: the DaemonSet mounts one Secret holding a key per
# node and points this at its own node's file (deploy/k8s/agent-daemonset.yaml).
SECRET_FILE_ENV = "GPU_ADVISOR_AGENT_SECRET_FILE"
NEXT_SECRET_FILE_ENV = "GPU_ADVISOR_AGENT_SECRET_NEXT_FILE"


def _secret_from_file(variable: str) -> bytes:
    """The key in the file `variable` names (surrounding whitespace dropped); b"" when unset or
    when the file does not exist (an optional rotation key)."""
    raw = os.environ.get(variable, "").strip()
    if not raw:
        return b""
    path = Path(raw)
    if not path.exists():
        if variable == SECRET_FILE_ENV:
            raise InputError(None, f"{variable}: {path} does not exist (is there a key for this host?)")
        return b""
    try:
        return path.read_bytes().strip()
    except OSError as exc:
        raise InputError(None, f"{variable}: cannot read {path}: {exc.strerror}") from exc


def _cmd_agent_serve(args: argparse.Namespace) -> int:
    from bot.agent.app import AgentConfig, create_app
    from bot.agent.jobs import is_loopback_ip
    from bot.agent.security import MIN_SECRET_BYTES, NEXT_SECRET_ENV, SECRET_ENV
    from bot.agent.serve import ConnectionLimits, live_probe, replay_probe, serve_forever
    secret = os.environ.get(SECRET_ENV, "").encode() or _secret_from_file(SECRET_FILE_ENV)
    host = args.host
    if args.insecure_dev:
        if host is not None and not is_loopback_ip(host):
            raise InputError(None, f"--insecure-dev binds loopback only; refusing --host {host} "
                                "(give a loopback address such as 127.0.0.1 or ::1, not a name)")
        host = host or "127.0.0.1"
        secret = b""
        print("gpu-advisor agent: INSECURE DEV MODE: requests are not authenticated; loopback only", file=sys.stderr)
    else:
        host = host or "127.0.0.1"
        if not secret:
            raise InputError(None, f"{SECRET_ENV} is not set; refusing to start without a secret "
                                "(use --insecure-dev for an unauthenticated loopback-only agent)")
        if len(secret) < MIN_SECRET_BYTES:
            raise InputError(None, f"{SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes")
    # Zero-downtime rotation: the next secret is accepted beside the current one (docs/agent.md).
    next_secret = (os.environ.get(NEXT_SECRET_ENV, "").encode() or _secret_from_file(NEXT_SECRET_FILE_ENV)) \
        if secret else b""
    if next_secret and len(next_secret) < MIN_SECRET_BYTES:
        raise InputError(None, f"{NEXT_SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise InputError(None, "--tls-cert and --tls-key go together")
    if args.kernel_log is not None and not args.kernel_log.is_file():
        raise InputError(None, f"--kernel-log: {args.kernel_log} is not a readable file")
    # An AgentStartError (a bad --replay capture, --user) is a ConfigError: one line, exit 2.
    if args.replay is not None:
        probe, backend = replay_probe(args.replay, args.replay_backend), f"replay:{args.replay_backend}"
    else:
        probe, backend = live_probe, "nvml"
    app = create_app(AgentConfig(secret=secret or None, next_secret=next_secret or None, gpu_probe=probe,
                                 backend=backend,
                                 kernel_log_replay=args.kernel_log, window_s=args.window,
                                 open_metrics=args.open_metrics, max_body=args.max_body,
                                 body_timeout_s=args.body_timeout))
    limits = ConnectionLimits(header_timeout_s=args.header_timeout, max_connections=args.max_connections,
                              keep_alive_s=args.keep_alive)
    serve_forever(app, host, args.port, args.tls_cert, args.tls_key,
                  args.user or os.environ.get("GPU_ADVISOR_AGENT_USER"), limits=limits)
    return 0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"{text} is out of range (more than 0, at most 3600 seconds)")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 1 << 30:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number from 1 to 2^30")
    return int(text)


def configure_agent(parser) -> None:
    agent_sub = parser.add_subparsers(dest="agent_command", required=True)
    serve = agent_sub.add_parser("serve", help="serve the agent's signed HTTP API on this host")
    serve.add_argument("--host", default=None, help="address to bind (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8700)
    serve.add_argument("--replay", type=Path, metavar="CAPTURE",
                       help="answer probes from an nvidia-smi -q / -q -x / capture file instead of NVML")
    serve.add_argument("--replay-backend", choices=["smi", "nvml"], default="smi",
                       help="replay through the nvidia-smi parser or through the NVML backend on a seeded stand-in")
    serve.add_argument("--kernel-log", type=Path, metavar="FILE", help="read Xid lines from this file")
    serve.add_argument("--insecure-dev", action="store_true", help="no authentication; binds loopback only")
    serve.add_argument("--tls-cert", help="PEM certificate for HTTPS")
    serve.add_argument("--tls-key", help="PEM private key for HTTPS")
    serve.add_argument("--user", help="drop root privileges to this user after start-up")
    serve.add_argument("--window", type=float, default=60.0, help="seconds a signed request stays valid")
    # Limits on what a client may hold before it has proved who it is (docs/operations.md, "Limits").
    serve.add_argument("--header-timeout", type=_seconds, default=10.0, metavar="S",
                       help="close a connection whose request headers take longer (default 10)")
    serve.add_argument("--body-timeout", type=_seconds, default=10.0, metavar="S",
                       help="refuse (408) a request whose body takes longer (default 10)")
    serve.add_argument("--keep-alive", type=_seconds, default=5.0, metavar="S",
                       help="idle seconds allowed between requests on one connection (default 5)")
    serve.add_argument("--max-connections", type=_count, default=512, metavar="N",
                       help="open connections at most; past it the longest-waiting unfinished one is closed "
                            "(default 512, kept 64 under the open-file limit)")
    serve.add_argument("--max-body", type=_count, default=64 * 1024, metavar="BYTES",
                       help="largest request body accepted (default 65536)")
    serve.add_argument("--open-metrics", action="store_true",
                       help="serve /metrics and /health unsigned, for a Prometheus scraper")
    serve.set_defaults(handler=_cmd_agent_serve)
