"""MOVED (issue #13.4, CLI helper): this module now lives in bot/cli/agent.py (configure_agent).

Subcommands register by name in bot/cli/__init__.py COMMANDS and raise bot.errors.InputError.
An edit made to this file between 23:44:28 and 23:45:10 UTC was lost in the move: please re-apply it
in bot/cli/agent.py.
This pointer file is removed before the end of the session.
"""
