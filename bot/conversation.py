"""Conversations: a question, then follow-ups that fill in what it left out.

`Conversations(advisor).ask(conversation_id, text)` parses the text, merges it into the
requirement the conversation has built so far, answers it, and remembers the result. The state
is a pydantic model of JSON values, so stores other than the in-memory one (SQLite, PostgreSQL)
can keep it behind the same `ConversationStore` protocol.

Merging: a slot stated in the new message replaces the earlier value; a slot it does not state
keeps the earlier value. Xids and symptoms accumulate (a troubleshooting thread adds evidence);
topics and stated costs are replaced when the new message states any (they describe what this
message asks about).
"""

from __future__ import annotations

import random
import threading
import time
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, Field

from bot.errors import InputError, ServiceError
from bot.advice.assemble import with_parse
from bot.models import Answer, Language, Quantity, Requirement
from bot.nlu import Parse, parse
from bot.seams import AdvisorService

_ACCUMULATE = ("xids", "symptoms")


# A question that cannot be answered as written (`field` says which value, `message` why): the
# parser's ParseError and the advisor's errors are already InputErrors, so they pass through.
QuestionError = InputError


# Attempts at an optimistic write before giving up: each failed one means another replica
# answered a follow-up in the same thread meanwhile.
WRITE_ATTEMPTS = 20


class ConversationConflict(ServiceError):
    """Other writers kept updating the conversation; this question's merge could not be stored."""


class ConversationState(BaseModel):
    conversation_id: str
    requirement: Requirement = Field(default_factory=Requirement)
    language: Language = "en"
    turns: int = 0
    # The typed numbers the thread has stated so far (a follow-up "what at 300 h a month?" keeps the
    # quotes of the message before it); see `carried_quantities`.
    quantities: list[Quantity] = Field(default_factory=list)


class ConversationStore(Protocol):
    def get(self, conversation_id: str) -> ConversationState | None: ...

    def put(self, state: ConversationState) -> None: ...


@runtime_checkable
class VersionedConversationStore(ConversationStore, Protocol):
    """A store several processes share (bot.store.adapters.StoreConversationStore): a state is
    written only if its revision is still the one read."""

    def get_versioned(self, conversation_id: str) -> tuple[ConversationState | None, int]: ...

    def put_if(self, state: ConversationState, revision: int) -> bool: ...


class MemoryConversationStore:
    """The default store: a dict behind a lock. States are copied in and out, never shared."""

    def __init__(self) -> None:
        self._states: dict[str, ConversationState] = {}
        self._lock = threading.Lock()

    def get(self, conversation_id: str) -> ConversationState | None:
        with self._lock:
            state = self._states.get(conversation_id)
            return state.model_copy(deep=True) if state else None

    def put(self, state: ConversationState) -> None:
        with self._lock:
            self._states[state.conversation_id] = state.model_copy(deep=True)


# Numbers that state an option of their own: a message with any of them compares its own options.
_OPTION_ROLES = frozenset({"quote", "subscription", "purchase", "bill-line", "bill-total", "budget"})


def carried_quantities(earlier: list[Quantity], stated: list[Quantity]) -> list[Quantity]:
    """The numbers a follow-up is answered with: its own, plus the earlier message's of every role it
    does not restate ("what if we only use 300 h a month?" keeps both quotes, replaces the usage). A
    message with quotes, prices or a bill of its own starts a new set. Carried numbers lose their
    spans (they were written in another message)."""
    if any(q.role in _OPTION_ROLES for q in stated) or not earlier:
        return list(stated)
    restated = {(q.role, q.option) for q in stated} | {(q.role, None) for q in stated}
    kept = [q.model_copy(update={"start": 0, "end": 0}) for q in earlier
            if (q.role, q.option) not in restated and (q.role, None) not in restated]
    return kept + list(stated)


def _follow_up_asks(earlier: Requirement, merged: Requirement, carried: bool) -> list:
    """'What if we use it 650 hours a month?' after a cost comparison is that comparison again with
    the new number: a follow-up without a cue of its own (read as an explanation) keeps the kind."""
    if not carried or not earlier.asks or earlier.asks[0].kind not in ("cost", "price"):
        return merged.asks
    if merged.asks and all(a.kind in ("explain", "open") for a in merged.asks):
        return [a.model_copy(update={"kind": earlier.asks[0].kind}) for a in merged.asks]
    return merged.asks


def merge(earlier: Requirement, stated: Parse) -> Requirement:
    """The earlier requirement with what this message stated laid over it."""
    update = {}
    for name in stated.extracted:
        value = getattr(stated.requirement, name)
        if name in _ACCUMULATE:
            value = list(dict.fromkeys([*getattr(earlier, name), *value]))
        update[name] = value
    data = earlier.model_dump() | update
    merged = Requirement.model_validate(data)
    # the numbers of this message, with their roles (not kept across messages: each is read anew)
    merged.quantities = list(stated.requirement.quantities)
    return merged


class Conversations:
    def __init__(self, advisor: AdvisorService, store: ConversationStore | None = None):
        self.advisor = advisor
        self.store = store if store is not None else MemoryConversationStore()
        # One question at a time per conversation, so two quick follow-ups cannot lose a merge.
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def _lock(self, conversation_id: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(conversation_id, threading.Lock())

    def ask(self, conversation_id: str, text: str, language: str | None = None) -> Answer:
        """Answer `text` in the context of the conversation. Raises QuestionError on bad input."""
        if language not in (None, "en", "zh"):
            raise QuestionError("language", f"{language!r} is not one of en, zh")
        with self._lock(conversation_id):
            stated = parse(text, self.advisor.catalog)
            # A store shared by replicas (get_versioned/put_if) is written only if no other
            # replica wrote the thread since it was read; else read, merge and answer again.
            versioned = self.store if isinstance(self.store, VersionedConversationStore) else None
            for attempt in range(WRITE_ATTEMPTS):
                if versioned is not None:
                    state, revision = versioned.get_versioned(conversation_id)
                else:
                    state, revision = self.store.get(conversation_id), 0  # no revision: written as is
                state = state or ConversationState(conversation_id=conversation_id)
                requirement = merge(state.requirement, stated)
                numbers = carried_quantities(state.quantities, list(stated.requirement.quantities))
                requirement.quantities = numbers
                requirement.asks = _follow_up_asks(state.requirement, requirement, len(numbers) > len(
                    stated.requirement.quantities))
                answer_language = language or stated.language
                answer = self.advisor.answer(requirement, language=answer_language)
                # Keep the merged requirement before the advisor's resolution: it is what the user
                # said, and the advisor resolves it again on each turn.
                # (its typed numbers belong to this message only: the store keeps the slots)
                merged = ConversationState(conversation_id=conversation_id,
                                           requirement=requirement.model_copy(update={"quantities": []}),
                                           language=answer_language, turns=state.turns + 1,
                                           quantities=numbers)
                if versioned is None:
                    self.store.put(merged)
                    break
                if versioned.put_if(merged, revision):
                    break
                time.sleep(random.uniform(0, 0.01 * (attempt + 1)))  # let the other writer finish
            else:
                raise ConversationConflict(f"conversation {conversation_id!r} kept changing under "
                                           f"{WRITE_ATTEMPTS} attempts to update it")
        return with_parse(answer, stated)

    def reset(self, conversation_id: str) -> None:
        """Forget the conversation's requirement (a user starting over)."""
        with self._lock(conversation_id):
            self.store.put(ConversationState(conversation_id=conversation_id))
