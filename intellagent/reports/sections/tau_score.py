"""τ-bench's score (`tau`), when the run played τ-bench's published tasks (`--scenarios-from tau:DIR`).

pass^1..pass^K over the tasks with 95% intervals, as τ-bench scores them (`intellagent.tau.score`), then every
dialog that missed its task's reward with what differed from the gold. It leads the summary and the page, and
gates on `report.min_tau_pass_k`.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts.run_report import Report, TauFailure, TauScore
from intellagent.config import ReportConfig
from intellagent.reports.section import JudgedRun, Section
from intellagent.reports.text import counted, one_line
from intellagent.tau.score import tau_score

SHOWN_FAILURES = 5
"""Failed tasks the summary names."""


def tau_lines(score: TauScore) -> list[str]:
    """τ-bench's score (pass^k with 95% intervals), then the failed tasks, the first few with what they missed."""
    curve = " · ".join(
        f"pass^{point.k} {point.value:.2f} (95% CI {point.low:.2f}–{point.high:.2f})" if point.value is not None
        else f"pass^{point.k} n/a" for point in score.pass_k
    )
    lines = [f"τ-bench: {counted(score.tasks, 'task')} × {counted(score.trials, 'trial')} · {curve}"]
    failed = [result for result in score.results if result.failures]
    if failed:
        lines.append(f"τ-bench tasks failed at least once: {len(failed)} of {score.tasks}")
        width = max(len(result.id) for result in failed[:SHOWN_FAILURES])
        for result in failed[:SHOWN_FAILURES]:
            lines.append(f"  {result.id:<{width}}  {result.passed}/{result.trials} passed  "
                         f"{one_line(_first_reason(result.failures[0]), 80)}")
    return lines


def _first_reason(failure: TauFailure) -> str:
    """What most plainly cost a dialog its reward."""
    if failure.error is not None:
        return f"failed to run: {failure.error}"
    if failure.missed:
        return f"missed {failure.missed[0]}"
    if failure.unexpected:
        return f"also wrote {failure.unexpected[0]}"
    if failure.unsaid:
        return f"never said {', '.join(failure.unsaid)}"
    return "the database ended otherwise"


def tau_panel(score: TauScore) -> str:
    """τ-bench's score, then every dialog that missed its task's reward, with what differed from the gold."""
    curve = "".join(
        f"<tr><td>pass^{p.k}</td><td>{'–' if p.value is None else f'{p.value:.2f}'}</td>"
        f"<td>{'' if p.low is None else f'{p.low:.2f}–{p.high:.2f}'}</td><td>{p.tasks}</td></tr>"
        for p in score.pass_k
    )
    rows = "".join(
        f'<tr><td><a href="#dialog-{escape(f.dialog)}">{escape(f.dialog)}</a></td>'
        f"<td>{result.passed}/{result.trials}</td><td>{_failure_cell(f)}</td></tr>"
        for result in score.results for f in result.failures
    )
    failures = (
        '<h3 class="sub">Dialogs that missed the reward</h3><table class="compact"><thead><tr><th>Dialog</th>'
        f"<th>Task passed</th><th>What differed from the gold</th></tr></thead><tbody>{rows}</tbody></table>"
        if rows else '<p class="hint">Every dialog earned its reward.</p>'
    )
    errors = f" {score.errors} dialogs failed to run and count as reward 0." if score.errors else ""
    return (
        '<section class="panel"><h2>τ-bench score</h2>'
        f'<p class="hint">{counted(score.tasks, "published task")} × {counted(score.trials, "trial")}, '
        "graded as τ-bench grades: reward 1 when the database ends as the task's gold actions leave it and every "
        f"required output was said. pass^k: per task C(c, k) / C(n, k), averaged over the tasks.{errors}</p>"
        '<table class="compact"><thead><tr><th></th><th>Score</th><th>95% CI</th><th>Tasks</th></tr></thead>'
        f"<tbody>{curve}</tbody></table>{failures}</section>"
    )


def _failure_cell(failure: TauFailure) -> str:
    lines = [f"failed to run: {escape(failure.error)}"] if failure.error is not None else []
    lines += [f"missed <code>{escape(one_line(call, 200))}</code>" for call in failure.missed]
    lines += [f"also wrote <code>{escape(one_line(call, 200))}</code>" for call in failure.unexpected]
    lines += [f"never said {escape(output)}" for output in failure.unsaid]
    lines += [f"differs: {escape(record)}" for record in failure.diff]
    lines += [f'<span class="hint">did not look up <code>{escape(one_line(call, 200))}</code></span>'
              for call in failure.missed_reads]
    return "<br>".join(lines)


def tau_gate(score: TauScore | None, settings: ReportConfig, report: Report) -> list[str]:
    """`report.min_tau_pass_k`: each pass^k against its minimum (or its 95% low end, under `report.gate_on`)."""
    return [line for k, minimum in sorted(settings.min_tau_pass_k.items())
            for line in _shortfall(score, k, minimum, gate_on=settings.gate_on)]


def _shortfall(score: TauScore | None, k: int, minimum: float, *, gate_on: str) -> list[str]:
    setting = "report.min_tau_pass_k"
    if score is None:
        return [f"{setting} is set, but the run played no τ-bench task; give a task set with --scenarios-from tau:DIR"]
    if k > score.trials:
        return [f"{setting} asks for pass^{k}, but each task was played {counted(score.trials, 'time')}; "
                f"set simulate.trials (--trials) to {k} or more"]
    figure = score.pass_k[k - 1]
    if figure.value is None or figure.low is None:
        return [f"τ-bench pass^{k} has no value (no task has {k} trials), so it cannot reach {setting} {minimum:g}"]
    shown = f"τ-bench pass^{k} {figure.value:.2f} (over {counted(figure.tasks, 'task')})"
    if gate_on == "lower_bound" and figure.low < minimum:
        return [f"{shown} has a 95% lower bound of {figure.low:.2f}, below {setting} {minimum:g} "
                "(report.gate_on: lower_bound)"]
    if gate_on == "point" and figure.value < minimum:
        return [f"{shown} is below {setting} {minimum:g}"]
    return []


def _measure(run: JudgedRun) -> TauScore | None:
    return tau_score(run.artifacts.events, run.artifacts.dialogs)


TAU = Section(
    key="tau",
    figures=TauScore,
    measure=_measure,
    leads=True,
    summary=lambda score, report: tau_lines(score),
    panel=lambda score, page: tau_panel(score),
    settings=("min_tau_pass_k",),
    gate=tau_gate,
)
"""τ-bench's score over its published tasks."""
