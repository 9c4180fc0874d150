"""MOVED (issue #13.4, CLI helper): this module now lives in bot/cli/rules.py (configure_rules).

Subcommands register by name in bot/cli/__init__.py COMMANDS and raise bot.errors.InputError.
This pointer file is removed before the end of the session.
"""
