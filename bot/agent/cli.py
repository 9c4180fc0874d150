"""`gpu-advisor agent serve`: run the host agent."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path


def _cmd_agent_serve(args: argparse.Namespace) -> int:
    from bot.agent.app import AgentConfig, create_app
    from bot.agent.jobs import is_loopback_ip
    from bot.agent.security import MIN_SECRET_BYTES, SECRET_ENV
    from bot.agent.serve import AgentStartError, live_probe, replay_probe, serve_forever
    from bot.cli import CliInputError

    secret = os.environ.get(SECRET_ENV, "").encode()
    host = args.host
    if args.insecure_dev:
        if host is not None and not is_loopback_ip(host):
            raise CliInputError(f"--insecure-dev binds loopback only; refusing --host {host} "
                                "(give a loopback address such as 127.0.0.1 or ::1, not a name)")
        host = host or "127.0.0.1"
        secret = b""
        print("gpu-advisor agent: INSECURE DEV MODE: requests are not authenticated; loopback only", file=sys.stderr)
    else:
        host = host or "127.0.0.1"
        if not secret:
            raise CliInputError(f"{SECRET_ENV} is not set; refusing to start without a secret "
                                "(use --insecure-dev for an unauthenticated loopback-only agent)")
        if len(secret) < MIN_SECRET_BYTES:
            raise CliInputError(f"{SECRET_ENV} must be at least {MIN_SECRET_BYTES} bytes")
    if bool(args.tls_cert) != bool(args.tls_key):
        raise CliInputError("--tls-cert and --tls-key go together")
    if args.kernel_log is not None and not args.kernel_log.is_file():
        raise CliInputError(f"--kernel-log: {args.kernel_log} is not a readable file")
    try:
        if args.replay is not None:
            probe, backend = replay_probe(args.replay, args.replay_backend), f"replay:{args.replay_backend}"
        else:
            probe, backend = live_probe, "nvml"
        app = create_app(AgentConfig(secret=secret or None, gpu_probe=probe, backend=backend,
                                     kernel_log_replay=args.kernel_log, window_s=args.window,
                                     open_metrics=args.open_metrics))
        serve_forever(app, host, args.port, args.tls_cert, args.tls_key,
                      args.user or os.environ.get("GPU_ADVISOR_AGENT_USER"))
    except AgentStartError as exc:
        raise CliInputError(str(exc)) from exc
    return 0


def register_agent(sub) -> None:
    parser = sub.add_parser("agent", help="the GPU host agent (probes and benchmarks)")
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
    serve.add_argument("--open-metrics", action="store_true",
                       help="serve /metrics and /health unsigned, for a Prometheus scraper")
    serve.set_defaults(handler=_cmd_agent_serve)
