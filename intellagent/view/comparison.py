"""Two runs compared: each policy better, worse or the same, by the test the gate's `--baseline` uses (and the
same test the other way for "better"), and, on one test set, each dialog whose status changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from intellagent.artifacts.run_report import PolicyChange
from intellagent.files import id_order
from intellagent.reports.sections.baseline_comparison import compare, significance_test
from intellagent.view.runs import Figures, Run

Direction = Literal["worse", "better", "same"]


@dataclass(frozen=True)
class PolicyMove:
    """One policy from the earlier run to the later one."""

    change: PolicyChange
    """The gate's comparison: the two rates and the p-value of 'passes less often now'."""
    better_p: float
    """The same test the other way: the p-value of 'passes more often now'."""
    direction: Direction


@dataclass(frozen=True)
class PolicyMoves:
    """Every policy the two runs hold with the same text, and those they do not."""

    moves: list[PolicyMove]
    not_comparable: list[str]

    def of(self, direction: Direction) -> list[PolicyMove]:
        """The policies that moved that way."""
        return [move for move in self.moves if move.direction == direction]

    def by_id(self) -> dict[str, PolicyMove]:
        """Each move by its policy's id."""
        return {move.change.id: move for move in self.moves}


def policy_moves(before: Run, after: Run, *, alpha: float) -> PolicyMoves:
    """Each policy of `after` against `before`: significantly worse or better at level `alpha`, or the same."""
    earlier, later = _figures(before), _figures(after)
    worse = compare(later.report, earlier.report, folder=before.folder.root, alpha=alpha)
    better = {c.id: c for c in compare(earlier.report, later.report, folder=after.folder.root, alpha=alpha).policies}
    moves = []
    for change in worse.policies:
        back = better[change.id]
        direction: Direction = ("worse" if change.significantly_worse
                                else "better" if back.significantly_worse else "same")
        moves.append(PolicyMove(change=change, better_p=back.p_value, direction=direction))
    return PolicyMoves(moves=moves, not_comparable=worse.not_comparable)


@dataclass(frozen=True)
class DialogChange:
    """A dialog whose status differs between the two runs (None: not in that run)."""

    id: str
    before: str | None
    after: str | None


@dataclass(frozen=True)
class RunComparison:
    """Two runs side by side: the earlier (`before`) and the later (`after`)."""

    before: Run
    after: Run
    test: str
    """The test behind 'significantly', as the reports state it."""
    policies: PolicyMoves
    mismatch: str | None
    """Why their dialogs cannot be set side by side (None: the same test set)."""
    changes: list[DialogChange]
    """Every dialog whose status changed, in id order (none when `mismatch`)."""

    @property
    def new_failures(self) -> list[DialogChange]:
        """Dialogs that passed before and fail now."""
        return [c for c in self.changes if (c.before, c.after) == ("pass", "fail")]

    @property
    def fixed(self) -> list[DialogChange]:
        """Dialogs that failed before and pass now."""
        return [c for c in self.changes if (c.before, c.after) == ("fail", "pass")]

    @property
    def other(self) -> list[DialogChange]:
        """Dialogs whose status changed otherwise: to or from no verdict (user fault, incomplete, error, absent)."""
        flipped = {c.id for c in self.new_failures + self.fixed}
        return [c for c in self.changes if c.id not in flipped]


def compare_runs(before: Run, after: Run, *, alpha: float) -> RunComparison:
    """`after` against `before`; both must have a report (`Run.figures`).

    Raises:
        ValueError: one of them has none (its `problem` says why).
    """
    mismatch = _mismatch(before, after)
    changes = [] if mismatch else _changes(_figures(before).verdicts, _figures(after).verdicts)
    return RunComparison(before=before, after=after, test=significance_test(alpha),
                         policies=policy_moves(before, after, alpha=alpha), mismatch=mismatch, changes=changes)


def _figures(run: Run) -> Figures:
    if run.figures is None:
        raise ValueError(f"{run.name} has no report to compare: {run.problem}")
    return run.figures


def _mismatch(before: Run, after: Run) -> str | None:
    """Why the two runs' dialogs are not the same tests, if they are not."""
    for run in (before, after):
        if run.test_set is None:
            return f"{run.name} has no test set of its own (no events.jsonl): its dialogs cannot be matched"
    if before.test_set != after.test_set:
        return (f"they were played on different test sets ({before.name}: {before.test_set}, {after.name}: "
                f"{after.test_set}): a dialog of one is not the same test as the dialog of that id in the other. "
                "Compare runs made from one frozen test set (--scenarios-from)")
    return None


def _changes(before: dict[str, str], after: dict[str, str]) -> list[DialogChange]:
    ids = sorted(before.keys() | after.keys(), key=id_order)
    return [DialogChange(i, before.get(i), after.get(i)) for i in ids if before.get(i) != after.get(i)]
