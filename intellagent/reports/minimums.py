"""How a rate misses its minimum in the quality gate, in one line: the words every rule of the gate shares."""

from __future__ import annotations

from intellagent.artifacts.run_report import Rate


def shortfall(what: str, rate: Rate, minimum: float, *, setting: str, unit: str, gate_on: str = "point") -> list[str]:
    """Why `rate` misses `minimum` (one line), or nothing if it reaches it.

    Args:
        what: names the rate ("pass rate", "category payment").
        setting: the threshold's name, as the user set it.
        unit: what was counted ("dialogs", "tests").
        gate_on: `point` compares the rate itself; `lower_bound` the low end of its 95% Wilson interval.
    """
    if rate.rate is None or rate.low is None:
        return [f"{what} has no verdict, so it cannot reach {setting} {minimum:g}"]
    counts = f"{rate.passed}/{rate.total} {unit}"
    if gate_on == "lower_bound":
        if rate.low < minimum:
            return [f"{what} {rate.rate:.1%} ({counts}) has a 95% lower bound of {rate.low:.1%}, below {setting} "
                    f"{minimum:g} (report.gate_on: lower_bound)"]
        return []
    if rate.rate < minimum:
        return [f"{what} {rate.rate:.1%} ({counts}) is below {setting} {minimum:g}"]
    return []
