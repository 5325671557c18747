"""A folder of run folders for the viewer, made by hand from the report tests' runs:

    build-1  the shop run of `shop_run`, reported: S002 fails (P03 broken), started 2025-03-01, its commit recorded
    build-2  the same test set, played again: S002 now asks before it changes the order and passes; labelled
    build-3  the run of `outcome_run` (suite "orders": a test set of its own, ids of digits only, outcomes graded)
    half     a run whose simulate stage was running when its run.json was last written: no report
    torn     a copy of build-1 whose report.json was cut in half
    notes    a folder of notes, no run

So build-1 → build-2 has one new pass (S002 fixed), and build-1 → build-3 is two test sets.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from intellagent.artifacts import Message, StageInfo
from intellagent.config import Config, load_config
from intellagent.llm import Request, ScriptedLLM
from intellagent.run_folder import RunFolder
from tests.report import outcome_run, shop_run

ASKED = "Shall I change the size of order O-1 to M? Please confirm."
"""What build-2's chatbot says in S002 where build-1's said "Done, I changed it."."""

STARTED = {"build-1": "2025-03-01T09:00:00+00:00", "build-2": "2025-03-02T09:00:00+00:00",
           "build-3": "2025-03-03T09:00:00+00:00", "half": "2025-03-04T09:00:00+00:00",
           "torn": "2025-02-01T09:00:00+00:00"}


def asked_first(request: Request) -> dict[str, Any]:
    """The judge of build-2: S002 broke nothing this time."""
    if "case S002." in request.text:
        return {"tested": ["P01", "P03"], "violations": []}
    return shop_run.answer_for(request)


def shelve(root: Path, configs: Path) -> Path:
    """Write the runs above under `root` (the shop's config in `configs`) and return `root`."""
    config = load_config(shop_run.write_config(configs))
    _build(config, root / "build-1", shop_run.answer_for)
    second = shop_run.make_run(config, root / "build-2")
    second.dialogs.replace([_asking(d) if d.id == "S002" else d for d in second.dialogs.load()])
    shop_run.report_run(config, second, ScriptedLLM().on(role="analysis", reply=asked_first))
    orders = config.model_copy(update={"name": "orders"})
    third = outcome_run.make_run(orders, root / "build-3")
    shop_run.report_run(orders, third, ScriptedLLM().on(role="analysis", reply=outcome_run.answer_for))
    half = shop_run.make_run(config, root / "half")
    shutil.copytree(root / "build-1", root / "torn")
    report = root / "torn" / "report.json"
    report.write_text(report.read_text()[: len(report.read_text()) // 2])
    for name, started in STARTED.items():
        _date(RunFolder(root / name), started, label="build two" if name == "build-2" else None)
    info = half.run_info.require()
    half.run_info.save(info.model_copy(update={"status": "running", "finished_at": None,
                                               "stages": {"simulate": StageInfo(started_at=STARTED["half"])}}))
    (root / "notes").mkdir()
    (root / "notes" / "todo.txt").write_text("compare build 2 with build 1\n")
    return root


def _build(config: Config, folder: Path, judge) -> RunFolder:
    run = shop_run.make_run(config, folder)
    shop_run.report_run(config, run, ScriptedLLM().on(role="analysis", reply=judge))
    return run


def _asking(dialog):
    transcript: list[Message] = [*dialog.transcript[:-1], Message(role="chatbot", content=ASKED)]
    return dialog.model_copy(update={"status": "pass", "reason": "the user judged: pass", "transcript": transcript,
                                     "critiques": []})


def _date(folder: RunFolder, started: str, *, label: str | None) -> None:
    info = folder.run_info.require()
    folder.run_info.save(info.model_copy(update={"started_at": started, "label": label}))
