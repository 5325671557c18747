"""The report's sections, in the order the summary, the page, the gate and junit.xml show them.

A run's report is its core (the overall pass rate, the policies, categories, flows, challenge levels, coverage
and dialogs) and these sections, each a `Section` value in a module of its own: what it measures, and what each
output makes of it (see `intellagent.reports.section`). To add one, write its module and list it here; a gate
rule's threshold is a setting of `ReportConfig` (config.py declares every setting, so that a wrong one stops the
run when its config is read, before anything runs), which the section names in `Section.settings`.

In report.json every section keeps a top-level key of its own, as the report's parts always had, rather than
going under one `sections` key: those keys are the file's contract with everything that reads it without this
code (a CI step's `jq .outcomes.pass_rate`, a dashboard, the baseline comparison of a later run), and nesting
them would break each such reader while adding no meaning. Every section this version knows is written, null
when the run has none of its figures, so the file says what it could have held; its keys never take a core
key's name (`check_keys`), and a key a reader does not know is one it may skip. The keys
and what they hold are documented with the report's files (README, report.json).
"""

from __future__ import annotations

from typing import Any

from intellagent.artifacts.run_report import Report
from intellagent.reports.section import Section
from intellagent.reports.sections.baseline_comparison import BASELINE
from intellagent.reports.sections.dual_control import DUAL_CONTROL
from intellagent.reports.sections.judge_agreement import AGREEMENT
from intellagent.reports.sections.label_figures import LABELS
from intellagent.reports.sections.outcome_floor import FLOOR
from intellagent.reports.sections.outcome_grade import OUTCOMES
from intellagent.reports.sections.persona_figures import PERSONAS
from intellagent.reports.sections.production_figures import PRODUCTION
from intellagent.reports.sections.program_figures import PROGRAMS
from intellagent.reports.sections.red_team import RED_TEAM
from intellagent.reports.sections.rollout_figures import ROLLOUTS
from intellagent.reports.sections.seeded_violations import CALIBRATION
from intellagent.reports.sections.simulator_faults import SIMULATOR
from intellagent.reports.sections.tau_score import TAU
from intellagent.reports.sections.trial_figures import TRIALS

SECTIONS: tuple[Section[Any], ...] = (
    TAU,
    OUTCOMES,
    FLOOR,
    DUAL_CONTROL,
    PERSONAS,
    BASELINE,
    TRIALS,
    CALIBRATION,
    PROGRAMS,
    ROLLOUTS,
    RED_TEAM,
    SIMULATOR,
    PRODUCTION,
    AGREEMENT,
    LABELS,
)
"""Every section, in order: the leading ones (`Section.leads`) come first on the page and in the summary, beside
the headline; the others after the core's charts and coverage line, in this order."""


def check_keys(sections: tuple[Section[Any], ...]) -> None:
    """That each section's key in report.json is its own, and none is a key of the report's core.

    Raises:
        ValueError: two sections share a key, or one takes a core key.
    """
    names = [section.key for section in sections]
    clashes = sorted({name for name in names if names.count(name) > 1 or name in Report.model_fields})
    if clashes:
        raise ValueError(f"report section keys clash: {', '.join(clashes)} (each must be its own, and none the core's)")
