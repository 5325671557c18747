"""Each dialog's share of the run's accounting, so a transcript can say what its roles consumed."""

from __future__ import annotations

import copy

from intellagent.llm import LLM, Tally, Usage


class DialogUsage(Usage):
    """Counts one dialog's LLM calls, and passes each on to the run's accounting and budget."""

    def __init__(self, run: Usage) -> None:
        super().__init__()
        self.run = run

    def check_budget(self) -> None:
        """The run's budget is the one that counts."""
        self.run.check_budget()

    def record(
        self,
        *,
        step: str,
        role: str,
        input_tokens: int,
        output_tokens: int,
        cached: bool,
        prices: tuple[float, float] | None,
        unpriced_model: str | None = None,
    ) -> None:
        """Count a call here and in the run's totals (see `Usage.record`)."""
        for record in (super().record, self.run.record):
            record(
                step=step,
                role=role,
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                cached=cached,
                prices=prices,
                unpriced_model=unpriced_model,
            )

    def by_role(self) -> dict[str, Tally]:
        """What each role consumed in this dialog."""
        return self.report().roles


def counted(llm: LLM, usage: Usage) -> LLM:
    """The same model, cache and settings, with its calls counted in `usage`."""
    view = copy.copy(llm)
    view.usage = usage
    return view
