"""The run folder and its catalogue: every artifact of a run, named once, with its model, the stage that
makes it, and whether a frozen test set carries it.

Every reader and writer reaches a file through its accessor (`folder.events.load()`,
`folder.report.save(report)`); the runner's `--fresh` deletes what the catalogue lists, `freeze`
carries what it marks frozen, and each stage's outputs are the entries it makes. A stage whose input
is missing fails the same way whichever it is: the file's path and the stage that makes it. How
each kind of file is written is in `intellagent.files`.
"""

from __future__ import annotations

import os
from pathlib import Path

from intellagent.artifacts import (
    Analysis,
    Attack,
    AttackTree,
    Dialog,
    Event,
    MutantList,
    PolicyCatalog,
    Report,
    Rollout,
    RolloutTree,
    RunInfo,
    Scenario,
)
from intellagent.artifacts.run_info import StageName
from intellagent.files import Artifact, Folder, Graph, Json, JsonFolder, Jsonl, Text, Worlds


class RunFolder:
    """The files of one run, one typed accessor each (the class attributes are the catalogue, in the order
    the pipeline makes them)."""

    run_info = Json("run.json", RunInfo)
    policies = Json("policies.json", PolicyCatalog, stage="describe", frozen=True)
    graph = Graph("graph.json", stage="describe", frozen=True)
    scenarios = Jsonl("scenarios.jsonl", Scenario, stage="describe", frozen=True)
    proposed_rules = Text("rules.proposed.yml", stage="describe", frozen=True)
    """The rules describe compiled, proposed for review, when the config names no rules file to write them beside."""
    events = Jsonl("events.jsonl", Event, stage="populate", frozen=True)
    event_worlds = Worlds("events", stage="populate", frozen=True)
    expected_worlds = Worlds("events", stage="populate", frozen=True, kind="expected")
    """Each event's expected world, beside its own: what its expected calls change in it."""
    dialogs = Jsonl("dialogs.jsonl", Dialog, stage="simulate")
    dialog_worlds = Worlds("dialogs", stage="simulate")
    mutants = Json("mutants.json", MutantList, stage="simulate")
    rollouts = Jsonl("rollouts.jsonl", Rollout, stage="rollouts")
    rollout_trees = JsonFolder("rollouts", RolloutTree, stage="rollouts")
    """Each event's search tree, rollouts/<event>.json."""
    rollout_worlds = Worlds("rollouts", stage="rollouts")
    """Each turn's world, rollouts/<event>/<turn>.delta.json: what its path changed in the event's world."""
    sft = Text("training/sft.jsonl", stage="rollouts")
    openai_sft = Text("training/openai-sft.jsonl", stage="rollouts")
    """The supervised examples in OpenAI's fine-tuning format, ready to upload."""
    preferences = Text("training/preferences.jsonl", stage="rollouts")
    kto = Text("training/kto.jsonl", stage="rollouts")
    data_card = Text("training/README.md", stage="rollouts")
    """What the training files hold, and what was left out of them and why."""
    attacks = Jsonl("attacks.jsonl", Attack, stage="redteam")
    attack_trees = JsonFolder("attacks", AttackTree, stage="redteam")
    """Each attack's attempts, attacks/<id>.json."""
    attack_worlds = Worlds("attacks", stage="redteam")
    """Each attempt's world, attacks/<attack>/<attempt>.delta.json: what its branch changed in the event's world."""
    planted_worlds = Worlds("attacks", stage="redteam", kind="planted")
    """The worlds planted for an attack through the data, attacks/<attack>/<attempt>.planted.delta.json: the event's
    world with the instruction in one record."""
    production = Jsonl("production.jsonl", Analysis, stage="production")
    """The verdict on each production conversation: the production stage's record of its items, listed before the
    conversations it reads them from as the stage's one record file."""
    transcripts = Jsonl("transcripts.jsonl", Dialog, stage="production")
    """The production conversations as dialogs, masked, with the checks' findings (`transcripts:`)."""
    regression = Folder("regression", stage="production")
    """The failing production conversations as a frozen test set (`--scenarios-from`)."""
    analyses = Jsonl("analysis.jsonl", Analysis, stage="report")
    report = Json("report.json", Report, stage="report")
    report_html = Text("report.html", stage="report")
    junit = Text("junit.xml", stage="report")

    llm_cache = "llm_cache.sqlite"
    """Every LLM answer of the run: not an artifact, it survives --fresh, so that no work is paid for twice."""
    labels = "labels.jsonl"
    """A person's labels of the run's dialogs (`artifacts.labels.Label`), which the report holds its judge and its
    audit to: not an artifact, since no stage writes it; it survives --fresh, and a frozen test set carries it to
    every run made from it."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @classmethod
    def catalogue(cls) -> tuple[Artifact[object], ...]:
        """Every artifact a run writes in its folder, in the order the pipeline makes them."""
        return tuple(entry for entry in vars(cls).values() if isinstance(entry, Artifact))

    @classmethod
    def made_by(cls, stage: StageName) -> tuple[Artifact[object], ...]:
        """The artifacts a stage makes."""
        return tuple(entry for entry in cls.catalogue() if entry.stage == stage)

    def path(self, name: str) -> Path:
        """The path of a file of the run folder by its name, e.g. 'events/S001.delta.json'."""
        return self.root / name

    def relative(self, path: Path) -> str:
        """The name of a file of the run folder, from its path (the inverse of `path`)."""
        return Path(os.path.relpath(path, self.root)).as_posix()
