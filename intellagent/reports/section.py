"""A section of the report: a part a run may or may not have (the outcome grade, the users' personas, repeated
trials, the production traffic, …), with everything the report does with it.

A section is a value (`Section`) made of what it measures and of how each output shows it: its figures (a
pydantic model, under a key of report.json), its lines in the summary, its cards beside the headline and its
panel on report.html (with a column of the policy table, if it has one), its part of the reliability line, its
rules in the quality gate (with the settings they read) and its properties, cases and suites in junit.xml. Every
part but the figures is optional: a section shows only where it says something. The sections a report has are
listed once, in `intellagent.reports.sections`; the summary, the page, the gate and junit.xml go through that list
and know no section by name.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

from intellagent.artifacts import Analysis
from intellagent.artifacts.run_report import DialogOutcome, PolicyResult, Report
from intellagent.config import ReportConfig
from intellagent.reports.dialog_analysis import RATED
from intellagent.reports.inputs import RunArtifacts

F = TypeVar("F", bound=BaseModel)

Durations = dict[str, float]
"""Seconds per dialog id (dialogs.jsonl's): report.json keeps no timings, junit.xml does."""


@dataclass(frozen=True)
class JudgedRun:
    """A run as the sections measure it, once every dialog is judged.

    Attributes:
        artifacts: the earlier stages' artifacts.
        analyses: every dialog's analysis by dialog id (the mutants' and solo dialogs' too).
        outcomes: each of the chatbot's dialogs (and solo ones) against its event's expected outcome, by dialog id
            (None: none was sought).
        core: the report's core figures, sections not yet measured.
        settings: the report's settings.
        baseline: the baseline run's report, when the run is compared with one.
    """

    artifacts: RunArtifacts
    analyses: dict[str, Analysis]
    outcomes: dict[str, DialogOutcome | None]
    core: Report
    settings: ReportConfig
    baseline: Report | None = None

    @cached_property
    def rated(self) -> list[Analysis]:
        """The analyses of the chatbot's dialogs that got a verdict (pass or fail), in dialog order."""
        judged = [self.analyses[dialog.id] for dialog in self.artifacts.dialogs if dialog.id in self.analyses]
        return [analysis for analysis in judged if analysis.status in RATED]


@dataclass(frozen=True)
class Page:
    """What a section's panel may read beside its figures: the whole report, and the artifacts it was made from."""

    report: Report
    artifacts: RunArtifacts


@dataclass(frozen=True)
class PolicyColumn:
    """A column a section adds to the page's policy table.

    Attributes:
        key: the column's sort key on the page.
        label: its header.
        cell: a policy's cell: the value it sorts by ("" sorts last) and its HTML.
    """

    key: str
    label: str
    cell: Callable[[PolicyResult], tuple[object, str]]


def _nothing(*_: Any) -> list[Any]:
    return []


def _blank(*_: Any) -> str:
    return ""


def _no_properties(*_: Any) -> dict[str, object]:
    return {}


def _no_verdicts(*_: Any) -> int:
    return 0


@dataclass(frozen=True, kw_only=True)
class Section(Generic[F]):
    """One section of the report: its figures and what each output makes of them.

    Attributes:
        key: its key in report.json (never a key of the core's).
        figures: the model of its figures.
        measure: its figures for a run, or None when the run has nothing of it (no persona, no τ-bench task, …).
        leads: it stands beside the headline: in the summary before the coverage line, on the page before the
            charts. Other sections come after them.
        summary: its lines in the end-of-run summary.
        cards: its cards beside the headline on the page (HTML, see `reports.panels.card`).
        panel: its panel on the page (HTML; every text a model wrote escaped).
        policy_columns: the columns it adds to the page's policy table.
        reliability: its parts of the reliability line, which says how far the report can be trusted; called
            with None too, for a section that says what was not measured.
        asked_for: it measures the report's reliability only when the run asks for it (repeated trials, seeded
            violations): while no such section has figures, the reliability line says "not measured".
        verdicts: the verdicts (pass or fail) its figures hold on what is not a test dialog: a run that played no test
            dialog has still tested something when a section judged it (production alone).
        settings: the report settings (`report.<key>` in the config) its gate rules read, recorded in the gate.
        gate: why its figures fail the gate under the settings, a line per reason; called with None too, so that a
            threshold set on figures the run lacks says so.
        junit_properties: the properties it adds to the run's test suite.
        junit_cases: the test cases it adds to the run's suite: distinct from every other case of the document,
            since a CI counts every case it finds.
        junit_suites: the test suites it adds after the run's (the same rule holds).
    """

    key: str
    figures: type[F]
    measure: Callable[[JudgedRun], F | None]
    leads: bool = False
    summary: Callable[[F, Report], list[str]] = _nothing
    cards: Callable[[F, Report], list[str]] = _nothing
    panel: Callable[[F, Page], str] = _blank
    policy_columns: Callable[[F], list[PolicyColumn]] = _nothing
    reliability: Callable[[F | None, Report], list[str]] = _nothing
    asked_for: bool = False
    verdicts: Callable[[F], int] = _no_verdicts
    settings: tuple[str, ...] = ()
    gate: Callable[[F | None, ReportConfig, Report], list[str]] = _nothing
    junit_properties: Callable[[F], dict[str, object]] = _no_properties
    junit_cases: Callable[[F, Report, Durations], list[ET.Element]] = _nothing
    junit_suites: Callable[[F, Report, Durations], list[ET.Element]] = _nothing

    def of(self, report: Report) -> F | None:
        """Its figures in a report; None when the run had none, or the report was made before the section existed."""
        value = report.sections.get(self.key)
        return None if value is None else self.figures.model_validate(value)

    def with_figures(self, report: Report, figures: F | None) -> Report:
        """A copy of the report with these figures as the section's."""
        value = None if figures is None else figures.model_dump(mode="json")
        return report.model_copy(update={"sections": {**report.sections, self.key: value}})
