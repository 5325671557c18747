"""The response cache's file: answers kept when the process dies, without a sync to disk per answer."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

from langchain_core.messages import AIMessage

from intellagent.llm.cache import ResponseCache

ROOT = Path(__file__).resolve().parents[2]


def test_an_answer_is_not_synced_to_disk_on_its_own(tmp_path):
    # SQLite's default (FULL) syncs the write-ahead log at every commit: a millisecond of the event loop per
    # answer. NORMAL syncs it at checkpoints.
    cache = ResponseCache(tmp_path / "cache.sqlite")
    try:
        assert cache._db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    finally:
        cache.close()


def test_answers_survive_a_process_killed_before_it_closes_the_cache(tmp_path):
    path = tmp_path / "cache.sqlite"
    writer = textwrap.dedent(f"""
        import os
        from pathlib import Path
        from langchain_core.messages import AIMessage
        from intellagent.llm.cache import ResponseCache
        cache = ResponseCache(Path({str(path)!r}))
        for number in range(20):
            cache.put(f"key{{number}}", role="user", step="simulate/user", request="{{}}",
                      answer=AIMessage(content=f"answer {{number}}"))
        os._exit(9)  # no close, no checkpoint: killed
    """)
    done = subprocess.run([sys.executable, "-c", writer], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 9, done.stderr
    cache = ResponseCache(path)
    try:
        assert len(cache) == 20
        answer = cache.get("key19")
        assert isinstance(answer, AIMessage) and answer.content == "answer 19"
    finally:
        cache.close()
    assert sqlite3.connect(path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"
