"""Every replica serves the same rule base: a version row in the store that replicas watch.

The row `rule_base_state('serving')` holds the rules+knowledge version (`serving_version` of the
`RuleBaseManager`) and a generation that rises on every publish.

- A replica publishes when a reload it ran itself (its file watcher, `/gpu rules reload`) swaps a
  version that differs from the row, and when it starts serving a version the row does not name
  (the newest deploy wins).
- `/gpu rules reload` on any replica (`reload_everywhere`) reloads there and publishes even an
  unchanged version: the generation rises, so every replica looks at its files again.
- Every replica polls the row every `interval_s` seconds (on its one `bot.ops.polling.PollLoop`,
  beside the configs' sync); a new generation naming another version
  than it serves makes it reload from its own files. Replicas share the files (one image, one
  volume or ConfigMap), so they converge on the version in the row; a replica whose files cannot
  build it (not yet propagated) keeps serving what it has, logs it, and converges when its own
  watcher sees the files arrive.

PostgreSQL LISTEN/NOTIFY would cut the delay below one poll; polling one row by primary key
works on SQLite as well and costs one indexed read per replica per interval.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

from bot.ops.polling import PollLoop
from bot.seams import RuleBaseRecords, RuleSource
from bot.store.db import StoreError

log = logging.getLogger("gpu_advisor.rules")


class RuleBaseSync:
    POLL_LABEL = "the published rule-base version"

    def __init__(self, store: RuleBaseRecords, rules: RuleSource, interval_s: float = 2.0):
        if interval_s <= 0:
            raise ValueError(f"interval_s must be positive, got {interval_s}")
        self.store = store
        self.rules = rules  # a RuleBaseManager
        self.interval_s = interval_s
        self.seen_generation: int | None = None
        self.followed = 0  # reloads this replica ran because another one published
        # Set while this replica reloads to follow the row: that reload is not published back.
        self._following = threading.Event()
        self._loop: PollLoop | None = None
        self._unsubscribe: Callable[[], None] | None = None

    # -- publishing ------------------------------------------------------------------------
    def _published(self) -> tuple[str, int] | None:
        return self.store.rule_base_state()

    def _publish(self, version: str) -> int:
        generation = self.store.publish_rule_base(version)
        self.seen_generation = generation
        log.info("published rule base %s (generation %d) for every replica", version, generation)
        return generation

    def _on_reload(self, result) -> None:
        """A reload on this replica: publish what it swapped in, unless it was following the row."""
        if self._following.is_set() or not (result.ok and result.changed):
            return
        state = self._published()
        if state is None or state[0] != self.rules.serving_version:
            self._publish(self.rules.serving_version)

    def reload_everywhere(self):
        """Reload here, then make every replica reload (`/gpu rules reload`); the local result."""
        result = self.rules.reload()
        if result.ok:
            try:
                self._publish(self.rules.serving_version)
            except StoreError:
                log.exception("publishing the reloaded rule base failed; other replicas keep their version")
        return result

    # -- following -------------------------------------------------------------------------
    def check(self) -> bool:
        """One poll: follow a new generation. True when this replica reloaded because of it."""
        state = self._published()
        if state is None:
            self._publish(self.rules.serving_version)
            return False
        version, generation = state
        if generation == self.seen_generation:
            return False
        self.seen_generation = generation
        if version == self.rules.serving_version:
            return False
        self._following.set()
        try:
            result = self.rules.reload()
        finally:
            self._following.clear()
        self.followed += 1
        if self.rules.serving_version != version:
            log.warning("replica cannot build the published rule base %s from its files; still serving %s%s",
                        version, self.rules.serving_version,
                        "" if result.ok else f" ({'; '.join(result.problems[:3])})")
        return True

    def start(self, loop: PollLoop | None = None) -> RuleBaseSync:
        """Publish this replica's version if the row names another one, then poll on `loop` (the
        replica's one polling thread, shared with the configs' sync; one of its own when none)."""
        state = self._published()
        if state is None or state[0] != self.rules.serving_version:
            self._publish(self.rules.serving_version)
        else:
            self.seen_generation = state[1]
        self._unsubscribe = self.rules.subscribe(self._on_reload)
        self._loop = (loop or PollLoop(self.interval_s, name="rules-sync")).add(self.POLL_LABEL, self.check)
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.remove(self.POLL_LABEL)
            self._loop = None
        if self._unsubscribe is not None:
            self._unsubscribe()
            self._unsubscribe = None
