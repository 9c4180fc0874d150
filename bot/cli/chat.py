"""`gpu-advisor chat`: a conversation in the terminal, one conversation id per session.

Each line is a question or a follow-up; the answer follows the line's language (or --lang).
`exit`, `quit`, `退出` or end of input leave; `/reset` (or `重新开始`) starts over; `more`
(`/full`, `更多`) prints the last answer in full, as `--full` prints every answer (the brief
answer's "--full, or More" line points at both).
"""

from __future__ import annotations

import argparse
import json
import sys
import uuid
from typing import TextIO

from bot.errors import InputError

EXIT_WORDS = {"exit", "quit", ":q", "退出", "再见"}
RESET_WORDS = {"/reset", "reset", "/new", "重新开始", "重来"}
MORE_WORDS = {"more", "/more", "--full", "/full", "full", "更多", "详细"}


def run_chat(conversations, stdin: TextIO, stdout: TextIO, conversation_id: str | None = None,
             language: str | None = None, as_json: bool = False, prompt: str = "> ", full: bool = False) -> int:
    """Read questions from `stdin` until EOF or an exit word; write answers to `stdout`."""
    from bot.render.text import render_text

    conversation_id = conversation_id or f"chat-{uuid.uuid4().hex[:12]}"
    if not as_json:
        stdout.write("gpu-advisor chat — ask in English or 中文; 'more' for the last answer in full, "
                     "'/reset' to start over, 'exit' to leave.\n")
    last = None
    while True:
        if prompt and not as_json:
            stdout.write(prompt)
            stdout.flush()
        line = stdin.readline()
        if not line:
            break
        text = line.strip()
        if not text:
            continue
        if text.lower() in EXIT_WORDS:
            break
        if text.lower() in RESET_WORDS:
            conversations.reset(conversation_id)
            last = None
            _emit(stdout, as_json, {"reset": conversation_id}, "(started over)")
            continue
        if text.lower() in MORE_WORDS:
            if last is None:
                _emit(stdout, as_json, {"error": "no answer yet", "field": None}, "(no answer yet: ask a question first)")
            elif as_json:  # a JSON answer is already complete
                stdout.write(json.dumps(last.model_dump(mode="json"), ensure_ascii=False) + "\n")
            else:
                stdout.write(render_text(last, full=True) + "\n")
            stdout.flush()
            continue
        try:
            answer = conversations.ask(conversation_id, text, language=language)
        except InputError as exc:
            _emit(stdout, as_json, {"error": str(exc), "field": exc.field}, f"error: {exc}")
            continue
        last = answer
        if as_json:
            stdout.write(json.dumps(answer.model_dump(mode="json"), ensure_ascii=False) + "\n")
        else:
            stdout.write(render_text(answer, full=full) + "\n")
        stdout.flush()
    if not as_json:
        stdout.write("\n")
    return 0


def _emit(stdout: TextIO, as_json: bool, data: dict, text: str) -> None:
    stdout.write((json.dumps(data, ensure_ascii=False) if as_json else text) + "\n")
    stdout.flush()


def _cmd_chat(args: argparse.Namespace) -> int:
    from bot.conversation import Conversations
    from bot.services import Services

    return run_chat(Conversations(Services().advisor()), sys.stdin, sys.stdout, conversation_id=args.conversation,
                    language=args.lang, as_json=args.json, full=args.full)


def configure_chat(parser) -> None:
    parser.add_argument("--lang", choices=["en", "zh"], help="answer language (default: each question's)")
    parser.add_argument("--json", action="store_true", help="print each answer as one JSON line")
    parser.add_argument("--full", action="store_true",
                        help="print every answer in full (or type `more` after one)")
    parser.add_argument("--conversation", metavar="ID", help="conversation id (default: a new one per session)")
    parser.set_defaults(handler=_cmd_chat)
