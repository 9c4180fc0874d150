"""`gpu-advisor fleet watch` (the scheduled fleet check, alerting Slack) and `gpu-advisor fleet
alerts` (the Alertmanager webhook receiver). Both post with SLACK_BOT_TOKEN to SLACK_API_URL;
docs/operations.md, "Fleet health in Slack"."""

from __future__ import annotations

import argparse
import asyncio
import os
import signal

from bot.errors import InputError

FLEET_ENV = "GPU_ADVISOR_FLEET"
TOKEN_ENV = "GPU_ADVISOR_ALERTMANAGER_TOKEN"


def _poster():
    from bot.fleet.slack import SlackPoster

    token = os.environ.get("SLACK_BOT_TOKEN", "")
    if not token:
        raise InputError(None, "SLACK_BOT_TOKEN is not set (or SLACK_BOT_TOKEN_FILE): fleet alerts post with it")
    return SlackPoster(token, base_url=os.environ.get("SLACK_API_URL") or "https://slack.com/api/")


def _cmd_watch(args: argparse.Namespace) -> int:
    from bot.dispatch.inventory import inventory_path
    from bot.fleet.config import load_fleet_config
    from bot.fleet.monitor import FleetMonitor
    from bot.services import Services

    path = args.config or os.environ.get(FLEET_ENV)
    if not path:
        raise InputError("--config", f"name the fleet file (or set {FLEET_ENV}); docs/operations.md shows one")
    config = load_fleet_config(path)  # a FleetConfigError is a ConfigError: one line, exit 2
    poster = _poster()
    services = Services(inventory=inventory_path(args.inventory), use_store=False)
    try:
        inventory = services.inventory
        assert inventory is not None  # inventory_path names a file or raises InventoryError
        unknown = sorted({h for g in config.groups for h in g.hosts if h != "*"} - {h.name for h in inventory.hosts})
        if unknown:
            raise InputError("groups", f"{', '.join(unknown)} not in the inventory")
        monitor = FleetMonitor(services.checker(max_concurrency=config.concurrency), inventory, poster, config)

        async def run() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGTERM, signal.SIGINT):
                try:
                    loop.add_signal_handler(signum, stop.set)
                except (NotImplementedError, RuntimeError):  # not the main thread (tests)
                    pass
            await monitor.run_forever(stop, rounds=args.rounds)

        asyncio.run(run())
        print(f"fleet watch: {monitor.posted} message(s) posted; {len(monitor.states)} host(s) degraded now")
        return 0
    finally:
        services.close()


def _cmd_alerts(args: argparse.Namespace) -> int:
    import threading

    from bot.fleet.webhook import AlertReceiver
    from bot.services import Services

    if not args.channel:
        raise InputError("--channel", "the Slack channel id the advice goes to")
    token = os.environ.get(TOKEN_ENV) or None
    try:
        receiver = AlertReceiver(Services().advisor(), _poster(), args.channel, token, host=args.host,
                                 port=args.port, language=args.lang)
    except ValueError as exc:
        raise InputError(None, str(exc)) from exc
    except OSError as exc:
        raise InputError("--port", f"cannot listen on {args.host}:{args.port}: {exc.strerror}") from exc
    stopped = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopped.set())
    receiver.start()
    print(f"alertmanager webhook on {receiver.url}", flush=True)
    stopped.wait()
    receiver.stop()
    return 0


def configure_fleet(parser) -> None:
    sub = parser.add_subparsers(dest="fleet_command", required=True)
    watch = sub.add_parser("watch", help="check host groups on a schedule; alert Slack once per degraded host")
    watch.add_argument("--config", metavar="PATH", help=f"the fleet YAML (default: ${FLEET_ENV})")
    watch.add_argument("--inventory", metavar="PATH", help="inventory YAML (default: $GPU_ADVISOR_INVENTORY)")
    watch.add_argument("--rounds", type=int, default=None, metavar="N",
                       help="stop after N rounds of each group (default: until SIGTERM)")
    watch.set_defaults(handler=_cmd_watch)
    alerts = sub.add_parser("alerts", help="receive Alertmanager webhooks; post rule-justified advice to Slack")
    alerts.add_argument("--channel", metavar="ID", help="the Slack channel id for the advice")
    alerts.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    alerts.add_argument("--port", type=int, default=9119, help="port (default 9119)")
    alerts.add_argument("--lang", choices=["en", "zh"], default="en")
    alerts.set_defaults(handler=_cmd_alerts)
