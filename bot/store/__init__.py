"""Durable state: conversations, Slack event dedupe, the dispatch audit log, host check history.

`Store` (bot.store.db) is the one interface; SQLite and PostgreSQL are its two backends.
"""

from bot.store.db import Store, StoreError, database_url
from bot.host_report import GpuCounters, HostCheck
from bot.store.models import AuditEntry

__all__ = ["Store", "StoreError", "database_url", "AuditEntry", "GpuCounters", "HostCheck"]
