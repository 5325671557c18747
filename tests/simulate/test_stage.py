"""The stage: every valid event gets one dialog, side by side, each on its own database, resumable."""

from __future__ import annotations

import asyncio
import json
import shutil
import sqlite3

import pytest
from scripted_dialogs import call, dialogs, event, reply, shop_config, simulate, verdict

from intellagent.errors import UsageError


def script_dialogs(script):
    """Every dialog: the user asks once, then stops with success; the critique agrees."""
    script.on(
        role="user",
        schema="UserTurn",
        when=lambda r: "\nCustomer (you): " not in r.last,
        reply={"thought": "ask", "decision": "continue", "reason": "", "message": "Cancel A1."},
    )
    script.on(
        role="user",
        schema="UserTurn",
        reply={"thought": "judge", "decision": "stop-success", "reason": "ok", "message": ""},
    )
    script.on(role="critique", schema="Critique", reply=verdict(True))


def asked(script, event_id):
    return [r for r in script.calls(role="user") if f"({event_id})" in r.system]


def test_dialogs_run_concurrently_up_to_workers(tmp_path, run_folder, script):
    running, most = 0, 0

    async def bot(messages):
        nonlocal running, most
        running += 1
        most = max(most, running)
        await asyncio.sleep(0.05)
        running -= 1
        return "Cancelled."

    script_dialogs(script)
    config = shop_config(tmp_path, workers=2)
    folder = run_folder(config, [event(f"S00{n}") for n in range(1, 6)])
    simulate(config, folder, script, chatbot=bot)
    assert most == 2
    assert [d.id for d in dialogs(folder)] == ["S001", "S002", "S003", "S004", "S005"]


@pytest.mark.filterwarnings(
    "ignore:coroutine .arun_with_retry. was never awaited"
)  # the dialog Ctrl-C kept from starting
def test_an_interrupted_run_resumes_without_redoing_or_duplicating_dialogs(tmp_path, run_folder, script):
    async def interrupted(messages, session_id):
        if session_id == "S002":
            raise KeyboardInterrupt  # the user presses Ctrl-C during the second dialog
        return "Cancelled."

    script_dialogs(script)
    config = shop_config(tmp_path, workers=1)
    folder = run_folder(config, [event("S001"), event("S002"), event("S003")])
    with pytest.raises(KeyboardInterrupt):
        simulate(config, folder, script, chatbot=interrupted)
    assert [d.id for d in dialogs(folder)] == ["S001"]
    with (folder / "dialogs.jsonl").open("a") as handle:
        handle.write('{"id": "S002", "sta')  # a line torn by a crash mid-write
    before = len(asked(script, "S001"))
    simulate(config, folder, script, chatbot=lambda messages: "Cancelled.")
    assert len(asked(script, "S001")) == before
    assert [(d.id, d.status) for d in dialogs(folder)] == [("S001", "pass"), ("S002", "pass"), ("S003", "pass")]


@pytest.mark.filterwarnings("ignore:coroutine .arun_with_retry. was never awaited")
def test_a_resumed_run_aborts_only_where_an_uninterrupted_one_would(tmp_path, run_folder, script):
    def failing_from_s004(messages, session_id):
        if session_id >= "S004":
            raise RuntimeError("the chatbot crashed")
        return "Cancelled."

    def interrupted_at_s004(messages, session_id):
        if session_id == "S004":
            raise KeyboardInterrupt
        return "Cancelled."

    script_dialogs(script)
    config = shop_config(tmp_path, workers=1)
    folder = run_folder(config, [event(f"S00{n}") for n in range(1, 7)])
    with pytest.raises(KeyboardInterrupt):
        simulate(config, folder, script, chatbot=interrupted_at_s004)

    # 3 of the stage's 6 dialogs fail: not more than half, so no abort, as in one uninterrupted run.
    simulate(config, folder, script, chatbot=failing_from_s004)

    assert [d.status for d in dialogs(folder)] == ["pass"] * 3 + ["error"] * 3


def test_a_second_run_over_a_finished_folder_asks_nothing_and_writes_nothing(tmp_path, run_folder, script):
    script_dialogs(script)
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Cancelled."))
    config = shop_config(tmp_path)
    folder = run_folder(config, [event("S001"), event("S002")])
    simulate(config, folder, script)
    written, requests = (folder / "dialogs.jsonl").read_bytes(), len(script.requests)
    simulate(config, folder, script)
    assert (folder / "dialogs.jsonl").read_bytes() == written and len(script.requests) == requests


def test_a_dialog_recorded_as_an_error_is_played_again_on_resume(tmp_path, run_folder, script):
    def down(messages):
        raise ConnectionError("the chatbot's service is down")

    script_dialogs(script)
    config = shop_config(tmp_path, workers=1)
    folder = run_folder(config, [event("S001"), event("S002")])
    simulate(config, folder, script, chatbot=lambda messages, session_id: down(messages) if session_id == "S002"
             else "Cancelled.")
    assert [(d.id, d.status) for d in dialogs(folder)] == [("S001", "pass"), ("S002", "error")]
    before = len(asked(script, "S001"))

    simulate(config, folder, script, chatbot=lambda messages: "Cancelled.")  # the service is back

    assert [(d.id, d.status) for d in dialogs(folder)] == [("S001", "pass"), ("S002", "pass")]
    assert len(asked(script, "S001")) == before  # the dialog that was done is not played again


def test_only_valid_events_get_a_dialog(tmp_path, run_folder, script):
    script_dialogs(script)
    config = shop_config(tmp_path)
    folder = run_folder(config, [event("S001"), event("S002", status="error", error="no valid rows")])
    simulate(config, folder, script, chatbot=lambda messages: "Cancelled.")
    assert [d.id for d in dialogs(folder)] == ["S001"]


def test_a_redone_dialog_starts_from_the_events_database(tmp_path, run_folder, script):
    script_dialogs(script)
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("get_order", order_id="A1"), reply("A1 is placed.")])
    config = shop_config(tmp_path)
    folder = run_folder(config, [event()])
    leftover = folder / "dialogs" / "S001.sqlite"  # an earlier attempt's copy, changed, with a stale journal
    leftover.parent.mkdir()
    shutil.copyfile(folder / "events" / "S001.sqlite", leftover)
    with sqlite3.connect(leftover) as db:
        db.execute("update orders set status = 'cancelled'")
    (folder / "dialogs" / "S001.sqlite-journal").write_bytes(b"stale")
    simulate(config, folder, script)
    (dialog,) = dialogs(folder)
    assert json.loads(dialog.transcript[2].tool_calls[0].result)["status"] == "placed"
    assert not (folder / "dialogs" / "S001.sqlite-journal").exists()


def test_usage_is_counted_per_dialog_and_in_the_run(tmp_path, run_folder, script):
    script_dialogs(script)
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Cancelled."))
    config = shop_config(tmp_path, workers=1)  # one at a time: S002 then finds S001's answers in the cache
    folder = run_folder(config, [event("S001"), event("S002")])
    simulate(config, folder, script)
    recorded = dialogs(folder)
    assert {role: tally.calls for role, tally in recorded[0].usage.items()} == {"chatbot": 1, "critique": 1, "user": 2}
    # S002's chatbot and critique prompts are S001's to the letter: served from the cache, not called again
    assert {role: tally.calls for role, tally in recorded[1].usage.items()} == {"chatbot": 0, "critique": 0, "user": 2}
    run = json.loads((folder / "run.json").read_text())["usage"]["stages"]["simulate"]
    assert run["input_tokens"] == sum(t.input_tokens for d in recorded for t in d.usage.values()) > 0


def test_the_llm_agent_needs_the_events_database(tmp_path, run_folder, script):
    script_dialogs(script)
    config = shop_config(tmp_path)
    folder = run_folder(config, [event(database=None)])
    simulate(config, folder, script)
    (dialog,) = dialogs(folder)
    assert dialog.status == "error" and "needs a database" in dialog.reason


def test_without_events_the_stage_says_to_run_populate(tmp_path, script):
    config = shop_config(tmp_path)
    folder = tmp_path / "run"
    with pytest.raises(UsageError, match="run the populate stage first"):
        simulate(config, folder, script)
