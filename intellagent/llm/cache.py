"""The response cache: every answered request in one SQLite file of the run folder.

The key is our own description of the request (provider, model, messages, tools, response schema,
sampling parameters), not LangChain's serialised client, which carries incidental details such as
the embedded server's random port; so the same work always maps to the same key, and a re-run of a
finished run is answered entirely from here.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import sqlite3
import threading
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, messages_from_dict, messages_to_dict


def wire_form(message: BaseMessage) -> dict[str, Any]:
    """The parts of a message that a provider sees, in a stable shape (no ids, no metadata)."""
    entry: dict[str, Any] = {"role": message.type, "content": message.content}
    if isinstance(message, AIMessage) and message.tool_calls:
        entry["tool_calls"] = [{"id": c["id"], "name": c["name"], "args": c["args"]} for c in message.tool_calls]
    if getattr(message, "tool_call_id", None):
        entry["tool_call_id"] = message.tool_call_id
    return entry


def request_key(identity: dict[str, Any], messages: list[BaseMessage], options: dict[str, Any]) -> tuple[str, str]:
    """The cache key of a request, and the canonical JSON it hashes (kept for inspection)."""
    request = {"model": identity, "messages": [wire_form(m) for m in messages], "options": options}
    text = json.dumps(request, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest(), text


class ResponseCache:
    """SQLite store of request → answer, safe to share between the threads of one run."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.Lock()
        # Requests being answered now, by key: an identical request waits for that answer instead of
        # paying for its own (the futures belong to the run's event loop, like the cache itself).
        self.in_flight: dict[str, asyncio.Future[AIMessage]] = {}
        # A frozen test set's cache may be shared by runs in parallel: wait for a writer, never fail.
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=60)
        self._db.execute("PRAGMA journal_mode=WAL")
        # Every answer is a commit; synced to disk each time, as SQLite does by default, each cost about a
        # millisecond of the event loop's time. In WAL mode a commit that is not synced survives the
        # process being killed; only a power cut may lose the last answers, which are then asked again.
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS answers ("
            " key TEXT PRIMARY KEY, role TEXT, step TEXT, request TEXT, answer TEXT)"
        )

    def get(self, key: str) -> AIMessage | None:
        """The cached answer of a request, or None."""
        with self._lock:
            row = self._db.execute("SELECT answer FROM answers WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        (message,) = messages_from_dict(json.loads(row[0]))
        return message

    def put(self, key: str, *, role: str, step: str, request: str, answer: AIMessage) -> None:
        """Store an answer; an existing entry for the key is replaced."""
        stored = AIMessage(
            content=answer.content, tool_calls=answer.tool_calls, usage_metadata=answer.usage_metadata
        )
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO answers VALUES (?, ?, ?, ?, ?)",
                (key, role, step, request, json.dumps(messages_to_dict([stored]))),
            )

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM answers").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            self._db.close()
