"""The Wilson interval and the one-sided Fisher exact test, against values computed by hand."""

from __future__ import annotations

import pytest

from intellagent.artifacts.rates import wilson_interval
from intellagent.artifacts.run_report import Rate
from intellagent.reports.sections.baseline_comparison import fisher_worse


@pytest.mark.parametrize(
    ("passed", "total", "low", "high"),
    [(5, 10, 0.2366, 0.7634), (10, 10, 0.7225, 1.0), (0, 5, 0.0, 0.4345), (1, 3, 0.0615, 0.7923)],
)
def test_wilson_interval_values(passed, total, low, high):
    interval = wilson_interval(passed, total)
    assert interval == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))


def test_no_interval_without_a_count():
    assert wilson_interval(0, 0) is None
    assert Rate.of(0, 0).model_dump() == {"passed": 0, "total": 0, "rate": None, "low": None, "high": None}


def test_a_rate_is_rounded_to_four_places():
    assert Rate.of(2, 3).model_dump() == {"passed": 2, "total": 3, "rate": 0.6667, "low": 0.2077, "high": 0.9385}


@pytest.mark.parametrize(
    ("before", "after", "p"),
    [((5, 5), (0, 5), 1 / 252), ((3, 3), (0, 3), 1 / 20), ((2, 2), (0, 2), 1 / 6), ((8, 10), (2, 10), 0.011507)],
)
def test_fisher_one_sided_p_values(before, after, p):
    assert fisher_worse(before, after) == pytest.approx(p, abs=1e-6)


def test_an_improvement_or_an_untested_side_is_never_significant():
    assert fisher_worse((0, 5), (5, 5)) == 1.0
    assert fisher_worse((5, 5), (0, 0)) == 1.0
