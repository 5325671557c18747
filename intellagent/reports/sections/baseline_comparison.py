"""The comparison with an earlier run (`baseline`, with `--baseline`): what changed per policy, and which
policies got significantly worse, each of which fails the gate.

"Significantly worse" is decided per policy by a one-sided Fisher exact test on its passed and
violated counts in both runs, at the configured level (0.05 by default). The exact test suits the
small counts of a policy tested a few times (it is written here, with the standard library): a single new
violation is reported, but only a drop that chance explains poorly fails the gate.
"""

from __future__ import annotations

from html import escape
from math import comb
from pathlib import Path
from typing import Any

from intellagent.artifacts.run_report import BaselineComparison, PolicyChange, PolicyResult, Report
from intellagent.config import Config, ReportConfig
from intellagent.errors import UsageError
from intellagent.reports.panels import policy_link
from intellagent.reports.section import JudgedRun, Section
from intellagent.reports.text import percent
from intellagent.run_folder import RunFolder


def check_baseline(config: Config, chatbot: Any = None) -> None:
    """Before the run starts: a `--baseline` with no report fails now, not after the dialogs were played.

    Raises:
        UsageError: the baseline folder holds no report.
    """
    if config.report.baseline is not None:
        load_baseline(config.report.baseline)


def load_baseline(folder: Path) -> Report:
    """The report of an earlier run folder; a one-line error when there is none."""
    report = RunFolder(folder).report.load()
    if report is None:
        raise UsageError(f"--baseline {folder}: no {RunFolder.report.name} there; give the folder of a run that was "
                         "reported")
    return report


def significance_test(alpha: float) -> str:
    """The test behind 'significantly worse', as stated in the reports."""
    return f"one-sided Fisher exact test on each policy's passed/violated counts, significance level {alpha:g}"


def compare(current: Report, baseline: Report, *, folder: Path, alpha: float) -> BaselineComparison:
    """This run's report against the baseline's, policy by policy.

    Args:
        current: this run's report.
        baseline: the earlier run's report.
        folder: where the baseline lives (named in the reports).
        alpha: significance level of the test.

    A policy is compared only when both runs hold it with the same text: with a different text the
    same id may name another rule.
    """
    before = {p.id: p for p in baseline.policies}
    comparable = [p for p in current.policies if p.id in before and before[p.id].text == p.text]
    changes = [_change(before[p.id], p, alpha) for p in comparable]
    current_ids = {p.id for p in current.policies}
    not_comparable = sorted(
        {p.id for p in current.policies} - {p.id for p in comparable}
        | {pid for pid in before if pid not in current_ids}
    )
    return BaselineComparison(
        folder=str(folder),
        name=baseline.name,
        test=significance_test(alpha),
        overall_before=baseline.overall.pass_rate,
        overall_after=current.overall.pass_rate,
        policies=changes,
        significantly_worse=[c.id for c in changes if c.significantly_worse],
        new_violations=[p.id for p in comparable if p.violated and not before[p.id].violated],
        newly_covered=[p.id for p in comparable if p.tested and not before[p.id].tested],
        no_longer_covered=[p.id for p in comparable if before[p.id].tested and not p.tested],
        not_comparable=not_comparable,
    )


def fisher_worse(before: tuple[int, int], after: tuple[int, int]) -> float:
    """One-sided Fisher exact test: the p-value that `after` passes less often than `before` by chance.

    Args:
        before: (passed, total) of the earlier run.
        after: (passed, total) of this run.

    With both runs' totals and the pooled number of passes fixed, the passes of this run follow a
    hypergeometric law under "no change"; the p-value is the chance of this few passes or fewer.
    """
    passed_before, total_before = before
    passed_after, total_after = after
    total = total_before + total_after
    passes = passed_before + passed_after
    if total_before == 0 or total_after == 0:
        return 1.0
    lowest = max(0, passes - total_before)
    ways = sum(comb(passes, k) * comb(total - passes, total_after - k) for k in range(lowest, passed_after + 1))
    return ways / comb(total, total_after)


def _change(before: PolicyResult, after: PolicyResult, alpha: float) -> PolicyChange:
    p_value = fisher_worse((before.passed, before.tested), (after.passed, after.tested))
    rates = (before.pass_rate.rate, after.pass_rate.rate)
    return PolicyChange(
        id=after.id,
        before=before.pass_rate,
        after=after.pass_rate,
        change=round(rates[1] - rates[0], 4) if None not in rates else None,
        p_value=round(p_value, 6),
        significantly_worse=p_value <= alpha,
    )


def baseline_panel(comparison: BaselineComparison) -> str:
    """The comparison's panel: the overall pass rate before and after, the policies by what changed, and each
    policy whose pass rate moved, the worst first."""
    before, after = comparison.overall_before, comparison.overall_after
    lists = [
        ("Significantly worse", comparison.significantly_worse, "violated"),
        ("New violations", comparison.new_violations, "violated"),
        ("Newly covered", comparison.newly_covered, "tested"),
        ("No longer covered", comparison.no_longer_covered, "untested"),
        ("Not comparable", comparison.not_comparable, "untested"),
    ]
    groups = "".join(
        f'<div><h3 class="sub">{title}</h3><p class="chips">'
        + ("".join(f'<a class="chip {css}" href="#policy-{escape(pid)}">{escape(pid)}</a>' for pid in ids) or "none")
        + "</p></div>"
        for title, ids, css in lists
    )
    changed = [c for c in comparison.policies if c.change or c.significantly_worse]
    rows = "".join(
        f'<tr class="{"worse" if c.significantly_worse else ""}">'
        f"<td>{policy_link(c.id)}</td>"
        f"<td>{c.before.passed}/{c.before.total}</td><td>{c.after.passed}/{c.after.total}</td>"
        f'<td>{"–" if c.change is None else f"{c.change * 100:+.0f} pts"}</td><td>{c.p_value:.3f}</td></tr>'
        for c in sorted(changed, key=lambda c: (c.p_value, c.id))
    )
    heads = "<th>Policy</th><th>Before</th><th>Now</th><th>Change</th><th>p</th>"
    table = (f'<table class="compact"><thead><tr>{heads}</tr></thead><tbody>{rows}</tbody></table>'
             if rows else "<p>No policy's pass rate changed.</p>")
    return (
        f'<section class="panel" id="baseline"><h2>Against the baseline</h2>'
        f'<p class="hint">Baseline {escape(comparison.folder)} ({escape(comparison.name)}): pass rate '
        f"{percent(before.rate)} ({before.passed}/{before.total}) → "
        f"{percent(after.rate)} ({after.passed}/{after.total}). "
        f"Significantly worse means: {escape(comparison.test)}.</p>"
        f'<div class="grid five">{groups}</div>{table}</section>'
    )


def baseline_gate(comparison: BaselineComparison | None, settings: ReportConfig, report: Report) -> list[str]:
    """A line per policy that got significantly worse than the baseline."""
    if comparison is None:
        return []
    return [f"{change.id} got significantly worse than the baseline: passed {change.before.passed}/"
            f"{change.before.total} before, {change.after.passed}/{change.after.total} now (one-sided Fisher exact "
            f"p={change.p_value:.3f} <= {settings.significance:g})"
            for change in comparison.policies if change.significantly_worse]


def _measure(run: JudgedRun) -> BaselineComparison | None:
    folder = run.settings.baseline
    if run.baseline is None or folder is None:
        return None
    return compare(run.core, run.baseline, folder=folder, alpha=run.settings.significance)


BASELINE = Section(
    key="baseline",
    figures=BaselineComparison,
    measure=_measure,
    panel=lambda comparison, page: baseline_panel(comparison),
    settings=("baseline",),
    gate=baseline_gate,
)
"""This run against an earlier run of the same config."""
