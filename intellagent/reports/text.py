"""Text as the reports show it: model output on one line, clipped; rates as percentages; call scores and the
judge's agreement in words."""

from __future__ import annotations

from intellagent.artifacts.rates import Share
from intellagent.artifacts.run_report import CallScore


def one_line(text: str, limit: int | None = None) -> str:
    """`text` with every run of whitespace turned into one space, clipped to `limit` characters with '…'."""
    text = " ".join(text.split())
    if limit is None or len(text) <= limit:
        return text
    return text[: limit - 1] + "…"


def percent(value: float | None) -> str:
    """A rate as a whole percentage, or an en dash when there is none."""
    return "–" if value is None else f"{value * 100:.0f}%"


def points(value: float | None, unit: str = " pts") -> str:
    """A difference of two rates in signed percentage points, or an en dash when there is none."""
    return "–" if value is None else f"{value * 100:+.0f}{unit}"


def counted(count: int, noun: str) -> str:
    """A count and its noun, plural unless one: "1 task", "3 tasks"."""
    return f"{count} {noun}{'' if count == 1 else 's'}"


def call_scores(score: CallScore) -> str:
    """Tool-call precision, recall and F1 as two-decimal figures ("–" where undefined)."""
    figures = (("P", score.precision.rate), ("R", score.recall.rate), ("F1", score.f1))
    return " ".join(f"{name} {'–' if value is None else f'{value:.2f}'}" for name, value in figures)


def agreement_text(source: str, agreement: Share) -> str:
    """How often the judge agreed with a deterministic source ("checks", "outcome") where both ruled."""
    return (f"judge and {source} agreed on {agreement.count} of {agreement.total} policy verdicts "
            f"({percent(agreement.rate)})")
