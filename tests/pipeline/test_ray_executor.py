"""The Ray executor: a run's items as tasks of two Ray workers on a local cluster, with a local run's artifacts.

The scripted double answers in the test's process, as every model of a Ray run answers in the run's
process; the items themselves run in the workers.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

import intellagent
from intellagent.artifacts import Analysis, Dialog
from intellagent.errors import UsageError
from intellagent.llm import HTTPError, ProviderUnavailable, ScriptedLLM
from tests.pipeline.scripted_pipeline import config, pipeline_script
from tests.pipeline.test_stage_functions import STABLE, records, without_usage

RAY = {"type": "ray", "processes": 2}
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """One local cluster of two CPUs for the module: a run joins it instead of starting its own."""
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level=logging.WARNING)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def local_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same run with the local executor."""
    folder = tmp_path_factory.mktemp("local") / "run"
    intellagent.evaluate(config(workers=4), output=folder, script=pipeline_script())
    return folder


def worlds(folder: Path) -> dict[str, bytes]:
    """The stored worlds of a run: the background, each event's rows and each dialog's changes."""
    return {path.relative_to(folder).as_posix(): path.read_bytes()
            for path in sorted([*folder.glob("events/*"), *folder.glob("dialogs/*")])}


def assert_same_artifacts(run: Path, local: Path, *, usage: bool = True) -> None:
    """Byte for byte where a run has no timing; record for record, timings aside, where it has."""
    for name in STABLE:
        assert (run / name).read_bytes() == (local / name).read_bytes(), name
    assert worlds(run) == worlds(local)
    dialogs, local_dialogs = records(run, "dialogs.jsonl", Dialog), records(local, "dialogs.jsonl", Dialog)
    if not usage:  # calls the first invocation made are cached hits on resume
        for dialog in (*dialogs, *local_dialogs):
            dialog.pop("usage")
    assert dialogs == local_dialogs
    assert records(run, "analysis.jsonl", Analysis) == records(local, "analysis.jsonl", Analysis)
    assert without_usage(run / "report.json") == without_usage(local / "report.json")


def test_a_ray_run_writes_the_artifacts_of_a_local_run(cluster: None, local_run: Path, tmp_path: Path) -> None:
    intellagent.evaluate(config(executor=RAY, workers=4), output=tmp_path / "ray", script=pipeline_script())

    assert_same_artifacts(tmp_path / "ray", local_run)
    counted = [json.loads((folder / "run.json").read_text())["usage"] for folder in (tmp_path / "ray", local_run)]
    for usage in counted:  # the accounting the run's process kept of the workers' calls, timings aside
        for tally in (usage["total"], *usage["stages"].values()):
            tally.pop("duration_s", None)
    assert counted[0] == counted[1]
    left = sorted(path.relative_to(tmp_path / "ray").as_posix() for path in (tmp_path / "ray").rglob("*.sqlite"))
    assert left == ["events/_background.sqlite", "llm_cache.sqlite"]  # no world left whole


def test_the_items_run_in_the_ray_workers_and_a_chatbot_object_goes_with_them(cluster: None, tmp_path: Path) -> None:
    def chatbot(messages: list[dict]) -> str:
        return f"Served by process {os.getpid()}."

    intellagent.evaluate(config(executor=RAY, workers=4), output=tmp_path / "ray", script=pipeline_script(),
                         chatbot=chatbot)

    said = {message["content"] for dialog in records(tmp_path / "ray", "dialogs.jsonl", Dialog)
            for message in dialog["transcript"] if message["content"].startswith("Served by")}
    processes = {int(text.removeprefix("Served by process ").rstrip(".")) for text in said}
    assert len(processes) == 2  # the two dialogs, one in each worker
    assert os.getpid() not in processes


def test_a_chatbot_that_cannot_travel_is_refused_by_name(cluster: None, tmp_path: Path) -> None:
    import threading

    lock = threading.Lock()

    def chatbot(messages: list[dict]) -> str:
        with lock:
            return "Hello."

    script = pipeline_script()
    with pytest.raises(UsageError, match="the chatbot cannot be sent to the Ray workers"):
        intellagent.evaluate(config(executor=RAY), output=tmp_path / "ray", script=script, chatbot=chatbot)
    assert not script.calls()  # refused before describe spent a call


def test_a_ray_run_stopped_mid_simulate_resumes_to_a_local_runs_artifacts(
    cluster: None, local_run: Path, tmp_path: Path
) -> None:
    settings = config(executor=RAY, workers=4, llm_retries=0)
    outage = ScriptedLLM().on(role="user", replies=[HTTPError(429, "rate limited: quota exhausted")])
    outage.rules += pipeline_script().rules  # after the outage, the same answers as the local run
    with pytest.raises(ProviderUnavailable, match="quota exhausted"):
        intellagent.evaluate(settings, output=tmp_path / "ray", script=outage)
    assert (tmp_path / "ray" / "events.jsonl").exists() and not (tmp_path / "ray" / "analysis.jsonl").exists()

    intellagent.evaluate(settings, output=tmp_path / "ray", script=outage)

    assert_same_artifacts(tmp_path / "ray", local_run, usage=False)


# A Ray run in a process of its own, whose model answers slowly enough to be killed mid-simulate.
KILLED_RUN = """
import sys
import intellagent
from tests.pipeline.scripted_pipeline import config, pipeline_script

script = pipeline_script()
script.latency = float(sys.argv[2])
intellagent.evaluate(config(executor={"type": "ray", "processes": 2}, workers=1), output=sys.argv[1], script=script,
                     progress=False)
"""


def test_a_ray_run_killed_mid_simulate_resumes_where_it_stopped(cluster: None, local_run: Path, tmp_path: Path) -> None:
    folder = tmp_path / "ray"
    alone = {key: value for key, value in os.environ.items() if key != "RAY_ADDRESS"}  # a cluster of its own
    run = subprocess.Popen([sys.executable, "-c", KILLED_RUN, str(folder), "0.3"], cwd=ROOT, env=alone,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
    dialogs = folder / "dialogs.jsonl"
    deadline = time.monotonic() + 120
    while not (dialogs.exists() and dialogs.read_text().count("\n") >= 1) and run.poll() is None:
        assert time.monotonic() < deadline, "the run recorded no dialog in time"
        time.sleep(0.05)
    os.killpg(run.pid, signal.SIGKILL)  # the run's process and the cluster it started, at once
    run.wait()
    assert run.returncode == -signal.SIGKILL, run.stderr.read().decode() if run.stderr else ""
    assert dialogs.read_text().count("\n") == 1  # one dialog of two was recorded
    first = json.loads(dialogs.read_text())

    # Resumed with the other executor: where the items ran is no part of what a run folder holds.
    intellagent.evaluate(config(workers=4), output=folder, script=pipeline_script())

    assert_same_artifacts(folder, local_run, usage=False)
    kept = [json.loads(line) for line in dialogs.read_text().splitlines() if json.loads(line)["id"] == first["id"]]
    assert kept == [first]  # not played again: the same record, to its timings


def test_without_ray_the_executor_names_the_install_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else find_spec(name, *a))
    with pytest.raises(UsageError, match=r"pip install 'intellagent\[ray\]'"):
        intellagent.evaluate(config(executor=RAY), output=tmp_path / "ray", script=pipeline_script())
    assert not (tmp_path / "ray").exists()  # refused before the run folder was touched


def test_a_calibrated_ray_run_plays_the_mutants_as_a_local_run_does(
    cluster: None, frozen_master: Path, tmp_path: Path
) -> None:
    """The automatic mutants are the `llm_agent` with a rule taken out or reversed: each travels to the workers
    with its model left behind, and answers through the run's process like the agent itself."""

    def opposite_script() -> ScriptedLLM:
        script = ScriptedLLM().on(schema="OppositeRule", reply={"opposite": "Cancel any order at once; never ask."})
        script.rules += pipeline_script().rules
        return script

    for name, executor in (("local", {"type": "local"}), ("ray", RAY)):
        shutil.copytree(frozen_master, tmp_path / f"frozen-{name}")
        intellagent.evaluate(config(executor=executor, workers=4), scenarios_from=tmp_path / f"frozen-{name}",
                             output=tmp_path / name, script=opposite_script(), calibrate=True)

    # A mutant's dialog asks the user and the critique what the chatbot's own dialog asks, at the same time: which
    # of the two the answer is counted to, and which gets it from the cache, is a race, wherever they run.
    played, local = ([{key: value for key, value in dialog.items() if key != "usage"}
                      for dialog in records(tmp_path / name, "dialogs.jsonl", Dialog)] for name in ("ray", "local"))
    assert len([dialog for dialog in played if dialog["mutant"]]) == 4  # omit and opposite, of each policy
    assert played == local
    assert (tmp_path / "ray" / "mutants.json").read_bytes() == (tmp_path / "local" / "mutants.json").read_bytes()
    assert without_usage(tmp_path / "ray" / "report.json") == without_usage(tmp_path / "local" / "report.json")


def test_a_worker_copies_a_file_that_items_need_at_once_one_time() -> None:
    """Two dialogs on one event start together: the second must not rewrite the event's world under the first."""
    from intellagent.executors.ray_worker import Worker

    fetched = []

    class Ref:
        """Awaited as a Ray object is: each await fetches it."""

        def __await__(self):
            fetched.append(1)
            yield from asyncio.sleep(0.05).__await__()
            return b"the event's rows"

    async def two_items(worker: Worker) -> None:
        ref = Ref()
        await asyncio.gather(*(worker._mirror({"events/S001.delta.json": ref}) for _ in range(2)))

    worker = Worker(config(), None, relay=None, debug=False)
    try:
        asyncio.run(two_items(worker))
        assert fetched == [1]
        assert worker.ctx.folder.path("events/S001.delta.json").read_bytes() == b"the event's rows"
    finally:
        asyncio.run(worker.leave())


def test_tau_bench_tasks_are_played_and_graded_in_the_workers_as_in_the_runs_process(
    cluster: None, tmp_path: Path
) -> None:
    """Every task's dialog starts from τ-bench's one complete database, sent to each worker once; the chatbot is
    a config target, imported by each worker."""
    from tests.pipeline.test_tau_mode import settings, tau_script

    for name, executor in (("local", {"type": "local"}), ("ray", RAY)):
        intellagent.evaluate(settings(executor=executor, workers=4), output=tmp_path / name, script=tau_script())

    graded = records(tmp_path / "ray", "dialogs.jsonl", Dialog)
    assert [(dialog["id"], dialog["tau"]["reward"]) for dialog in graded] == [("T000", 1.0), ("T001", 1.0),
                                                                               ("T002", 1.0)]
    assert graded == records(tmp_path / "local", "dialogs.jsonl", Dialog)
    assert worlds(tmp_path / "ray") == worlds(tmp_path / "local")


def test_an_item_that_fails_in_a_worker_is_recorded_with_the_reason_a_local_run_gives(
    cluster: None, tmp_path: Path
) -> None:
    def broken(messages: list[dict]) -> str:
        raise ConnectionError("the chatbot's backend is down")

    for name, executor in (("local", {"type": "local"}), ("ray", RAY)):
        intellagent.evaluate(config(executor=executor, budget={"max_error_rate": 1.0}), output=tmp_path / name,
                             script=pipeline_script(), chatbot=broken)

    failed = records(tmp_path / "ray", "dialogs.jsonl", Dialog)
    assert [(dialog["status"], "the chatbot's backend is down" in dialog["reason"]) for dialog in failed] == [
        ("error", True), ("error", True)]
    assert failed == records(tmp_path / "local", "dialogs.jsonl", Dialog)
