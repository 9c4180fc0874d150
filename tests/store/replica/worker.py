"""One "bot replica" process for the two-replica tests: commands on stdin, JSON answers on stdout.

It opens its own `Store` from GPU_ADVISOR_DATABASE_URL / GPU_ADVISOR_DATABASE_SCHEMA, exactly as
`gpu-advisor serve` does, and holds it for its lifetime.

    claim GO_FILE ID [ID ...]   wait until GO_FILE exists, then claim each Slack event id once
    turn THREAD TEXT            continue a thread: read its state, append a turn, write it back
    show THREAD                 print the thread's state
    ask THREAD TEXT             ask through bot.conversation.Conversations on the store; print
                                the answer's requirement and the stored turn count
"""

from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from bot.store import Store
from bot.store.adapters import StoreConversationStore, StoreDedupe


def main() -> None:
    store = Store(claimed_by=f"replica-{os.getpid()}")
    dedupe = StoreDedupe(store, ttl_s=3600)
    conversations = None
    print(json.dumps({"ready": os.getpid()}), flush=True)
    for line in sys.stdin:
        command, *args = line.split()
        if command == "claim":
            go = Path(args[0])
            while not go.exists():
                time.sleep(0.005)
            won = {event_id: dedupe.first_seen(event_id) for event_id in args[1:]}
            print(json.dumps({"won": won}), flush=True)
        elif command == "turn":
            thread, text = args[0], " ".join(args[1:])
            state = store.get_conversation(thread) or {"turns": []}
            state["turns"].append({"text": text, "replica": os.getpid()})
            store.put_conversation(thread, state)
            print(json.dumps({"state": state}), flush=True)
        elif command == "ask":
            if conversations is None:
                from bot.advisor import Advisor
                from bot.conversation import Conversations

                conversations = Conversations(Advisor(), store=StoreConversationStore(store))
            answer = conversations.ask(args[0], " ".join(args[1:]))
            turns = conversations.store.get(args[0]).turns
            print(json.dumps({"requirement": answer.requirement.model_dump(mode="json", exclude_defaults=True),
                              "turns": turns}), flush=True)
        elif command == "show":
            print(json.dumps({"state": store.get_conversation(args[0])}), flush=True)
        else:
            print(json.dumps({"error": f"unknown command {command!r}"}), flush=True)
    store.close()


if __name__ == "__main__":
    main()
