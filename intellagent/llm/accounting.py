"""Accounting of LLM calls: counts, tokens and cost per stage, per step and per role, and the budget."""

from __future__ import annotations

import threading
from collections import defaultdict

from intellagent.artifacts.usage import Tally, UsageReport
from intellagent.errors import RunAborted

# LangChain's name of a provider → its id in genai-prices' table. Providers that run models on the user's
# own machines (ollama) have no list price.
_PRICE_PROVIDERS = {
    "openai": "openai", "azure": "azure", "azure_openai": "azure", "anthropic": "anthropic",
    "google_genai": "google", "google_vertexai": "google", "bedrock": "aws", "bedrock_converse": "aws",
    "mistralai": "mistral", "groq": "groq", "deepseek": "deepseek", "xai": "x-ai", "fireworks": "fireworks",
    "together": "together", "cohere": "cohere", "perplexity": "perplexity",
}


def price_provider(provider: str) -> str | None:
    """The id under which the price table lists a provider's models, if it lists them."""
    return _PRICE_PROVIDERS.get(provider)


def price_per_token(model: str | None, *, provider: str | None = None) -> tuple[float, float] | None:
    """(input, output) USD per token of a model at its list price, from genai-prices' maintained table
    (a snapshot that ships with the package: no network), or None when the table does not know it.

    Args:
        model: the model's name as the provider knows it (a dated snapshot is matched too).
        provider: the provider's id in that table ("openai", "azure", ...); None lets it guess from the name.
    """
    if not model:
        return None
    from genai_prices import Usage, calc_price  # loads its table: only when a price is asked for

    try:
        price = calc_price(Usage(input_tokens=1_000_000, output_tokens=1_000_000), model, provider_id=provider)
    except LookupError:
        return None
    return float(price.input_price) / 1e6, float(price.output_price) / 1e6


class BudgetExhausted(RunAborted):
    """The run reached --max-cost; no new LLM call is started."""


class Usage:
    """Thread-safe counters shared by every LLM of a run.

    A usage with a `parent` (one dialog's share of the run, say) counts each call in its parent too,
    and answers to the parent's budget. A usage with a `stage` counts each call, here and in its parents, under
    that stage, whichever stage's parts made it (the rollouts play dialogs with simulate's parts).
    """

    def __init__(
        self, *, max_cost_usd: float | None = None, start: UsageReport | None = None, parent: Usage | None = None,
        stage: str | None = None,
    ) -> None:
        self.max_cost_usd = max_cost_usd
        self.parent = parent
        self.stage = stage
        self._lock = threading.Lock()
        self._report = start.model_copy(deep=True) if start else UsageReport()
        self._unpriced: set[str] = set(self._report.unpriced_models)
        self._by: dict[str, dict[str, Tally]] = {
            "stages": defaultdict(Tally, self._report.stages),
            "steps": defaultdict(Tally, self._report.steps),
            "roles": defaultdict(Tally, self._report.roles),
        }

    def check_budget(self) -> None:
        """Raise `BudgetExhausted` if the spent cost has reached the budget."""
        if self.parent is not None:
            self.parent.check_budget()
        if self.max_cost_usd is not None and self.total.cost_usd >= self.max_cost_usd:
            raise BudgetExhausted(
                f"budget of ${self.max_cost_usd:.2f} reached (${self.total.cost_usd:.4f} spent); "
                "raise --max-cost to continue, the run resumes where it stopped"
            )

    def exhausted(self) -> bool:
        """Whether the spent cost has reached the budget, here or in a parent (`check_budget` would raise)."""
        try:
            self.check_budget()
        except BudgetExhausted:
            return True
        return False

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
        cache_read_tokens: int = 0,
    ) -> None:
        """Count one answered call. `step` is 'stage/step', e.g. 'describe/policies'.

        Args:
            cache_read_tokens: of the input tokens, those the provider's prompt cache served.
            prices: USD per input and per output token, or None when free or unknown.
            unpriced_model: the model's name when its price is unknown, so the report can say so.
        """
        if self.stage is not None:
            step = f"{self.stage}/{step.partition('/')[2] or step}"
        tally = Tally(calls=0 if cached else 1, cached=1 if cached else 0)
        if not cached:
            tally.input_tokens, tally.output_tokens = input_tokens, output_tokens
            tally.cache_read_tokens = cache_read_tokens
            if prices:
                tally.cost_usd = input_tokens * prices[0] + output_tokens * prices[1]
            if unpriced_model:
                self._unpriced.add(unpriced_model)
        with self._lock:
            self._report.total.add(tally)
            self._by["stages"][step.split("/")[0]].add(tally)
            self._by["steps"][step].add(tally)
            self._by["roles"][role].add(tally)
        if self.parent is not None:
            self.parent.record(step=step, role=role, input_tokens=input_tokens, output_tokens=output_tokens,
                               cached=cached, prices=prices, unpriced_model=unpriced_model,
                               cache_read_tokens=cache_read_tokens)

    @property
    def total(self) -> Tally:
        with self._lock:
            return self._report.total.model_copy()

    def report(self) -> UsageReport:
        """A snapshot, with stable key order."""
        with self._lock:
            return UsageReport(
                total=self._report.total.model_copy(),
                **{name: dict(sorted(groups.items())) for name, groups in self._by.items()},
                unpriced_models=sorted(self._unpriced),
            )
