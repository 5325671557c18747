"""What the report is made from: the earlier stages' artifacts of a run folder, read and checked."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TypeVar

import networkx as nx

from intellagent.artifacts import (
    Analysis,
    Attack,
    Dialog,
    Event,
    MutantRecord,
    PolicyCatalog,
    Rollout,
    RunInfo,
    Scenario,
)
from intellagent.files import id_order
from intellagent.reports.label_agreement import LabelFile
from intellagent.run_folder import RunFolder

T = TypeVar("T", Scenario, Event, Dialog, Rollout, Attack)


@dataclass
class RunArtifacts:
    """The artifacts of describe, populate and simulate, plus run.json (`rollouts`: rollouts.jsonl, when the run
    rolled out; `labels`: a person's labels of its dialogs, when the report is given any; `attacks`: attacks.jsonl,
    when the red team attacked, with the winning branch of each attack that broke its rule in `attack_dialogs`, by
    attack id).

    `dialogs` are the chatbot's; a calibrated run's mutants and their dialogs are apart, so that no
    figure of the chatbot ever counts a mutant's dialog, and so are the solo dialogs played beside dual
    ones (`solo_dialogs`, `simulate.dual_control: both`), which the report sets beside them.
    """

    catalog: PolicyCatalog
    graph: nx.Graph
    scenarios: list[Scenario]
    events: list[Event]
    dialogs: list[Dialog]
    info: RunInfo | None
    mutants: list[MutantRecord] = field(default_factory=list)
    mutant_dialogs: list[Dialog] = field(default_factory=list)
    transcripts: list[Dialog] = field(default_factory=list)
    production: list[Analysis] = field(default_factory=list)
    rollouts: list[Rollout] = field(default_factory=list)
    solo_dialogs: list[Dialog] = field(default_factory=list)
    labels: LabelFile | None = None
    attacks: list[Attack] = field(default_factory=list)
    attack_dialogs: dict[str, Dialog] = field(default_factory=dict)

    def scenario(self, item_id: str) -> Scenario | None:
        """The scenario of an event id, if any."""
        return self._scenarios.get(item_id)

    def event(self, item_id: str) -> Event | None:
        """The event of that id, if any."""
        return self._events.get(item_id)

    # By id, so that a report's lookups take the same time per dialog at any size (the first id wins).
    @cached_property
    def _scenarios(self) -> dict[str, Scenario]:
        return {s.id: s for s in reversed(self.scenarios)}

    @cached_property
    def _events(self) -> dict[str, Event]:
        return {e.id: e for e in reversed(self.events)}


def load_artifacts(folder: RunFolder) -> RunArtifacts:
    """Read a run folder's artifacts; a missing one is a one-line error that says which stage makes it. A run that
    judged production alone (its conversations and no dialog) has no scenario, event or dialog to read."""
    catalog, graph = folder.policies.require(), folder.graph.require()
    alone = folder.transcripts.exists() and not folder.dialogs.exists()
    scenarios, events, played = ((folder.scenarios.load(), folder.events.load(), []) if alone else
                                 (folder.scenarios.require(), folder.events.require(), folder.dialogs.require()))
    scenarios, events = _latest(scenarios), _latest(events)
    by_id = {event.id: event for event in events}
    dialogs = [_with_event(d, by_id.get(d.event_id)) for d in _latest(played)]
    mutants = folder.mutants.load()
    attacks = _latest(folder.attacks.load())
    return RunArtifacts(
        catalog=catalog,
        graph=graph,
        scenarios=scenarios,
        events=events,
        dialogs=[d for d in dialogs if d.role == "chatbot"],
        info=folder.run_info.load(),
        mutants=mutants.mutants if mutants else [],
        mutant_dialogs=[d for d in dialogs if d.role == "mutant"],
        transcripts=folder.transcripts.load(),
        production=folder.production.load(),
        rollouts=_latest(folder.rollouts.load()),
        solo_dialogs=[d for d in dialogs if d.role == "solo"],
        attacks=attacks,
        attack_dialogs=winning_branches(folder, attacks),
    )


def winning_branches(folder: RunFolder, attacks: list[Attack]) -> dict[str, Dialog]:
    """The winning branch of each attack that broke its rule, by attack id (from its tree)."""
    found = {}
    for attack in attacks:
        tree = folder.attack_trees.item(attack.id).load() if attack.breached else None
        if tree is not None and tree.dialog is not None:
            found[attack.id] = tree.dialog
    return found


def _with_event(dialog: Dialog, event: Event | None) -> Dialog:
    """A dialog that names its event's policies and challenge, in case the dialog record left them out.

    The analysis asks about exactly these policies: the ones the event was built to test.
    """
    if event is None or (dialog.policies and dialog.challenge):
        return dialog
    return dialog.model_copy(update={"policies": dialog.policies or event.policies,
                                     "challenge": dialog.challenge or event.challenge})


def _latest(items: list[T]) -> list[T]:
    """One item per id, the last written (a file not yet finalized may repeat an id), in id order."""
    by_id = {item.id: item for item in items}  # type: ignore[attr-defined]
    return [by_id[key] for key in sorted(by_id, key=id_order)]
