"""The settings a run may change without editing its config, each declared once, in `OVERRIDES`.

The command line's flags (`add_flags`, read back by `given`), `config.apply_overrides` and the keyword arguments
of the Python API (`documented`: `intellagent.evaluate(..., fail_under=0.8)`) are all made from the declaration,
so an override added to it is a flag, a keyword and a config change at once, each with the same words.
"""

from __future__ import annotations

import argparse
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from intellagent.llm.spec import parse_spec

F = TypeVar("F", bound=Callable[..., Any])


def trial_count(value: str) -> int | str:
    """--trials: a number of trials per event, or `auto`."""
    if value == "auto":
        return value
    try:
        return int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r} is neither a number of trials nor auto") from None


def _absolute(path: Any) -> Path:
    """A path given on the command line or to the API, made absolute: the run may read it from another folder."""
    return Path(path).resolve()


@dataclass(frozen=True)
class Override:
    """One setting a run may change without editing its config.

    Attributes:
        name: its keyword in the Python API; the command line's flag is the same with dashes (`fail_under`,
            `--fail-under`), unless `flag` names another.
        key: the config key it replaces, dotted (`report.fail_under`).
        help: what it does, in a phrase: the flag's help and the keyword's documentation.
        type: what the API takes; the command line reads the flag's text as it (int, float, Path) unless `parse` says
            how.
        metavar: how --help shows the flag's value.
        parse: how the command line reads the flag's text, when `type` cannot.
        choices: the values it takes, when they are few.
        switch: a flag with no value (`--calibrate`), which turns the setting on.
        to_config: what the config key gets for a value (a SPEC parsed, a path made absolute); the value itself
            by default.
        flag: the command line's flag, when it is not the name's; None with `command_line=False`.
        command_line: whether the command line has it (a mapping such as `min_category` is the API's only).
        api: whether the API takes it as a keyword (τ-bench's task set comes with `scenarios_from` instead).
    """

    name: str
    key: str
    help: str
    type: Any = str
    metavar: str | None = None
    parse: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    switch: bool = False
    to_config: Callable[[Any], Any] | None = None
    flag: str | None = None
    command_line: bool = True
    api: bool = True

    @property
    def option(self) -> str:
        """The command line's flag."""
        return self.flag or "--" + self.name.replace("_", "-")

    def config_value(self, value: Any) -> Any:
        """What the config key gets when the override is given `value`."""
        return self.to_config(value) if self.to_config is not None else value


OVERRIDES: tuple[Override, ...] = (
    Override("llm", "llm", "model of every framework role (per-role settings are replaced)", metavar="SPEC",
             to_config=lambda spec: {"default": parse_spec(spec)}),
    Override("chatbot_llm", "chatbot.llm", "model of the chatbot under test (llm_agent)", metavar="SPEC",
             to_config=parse_spec),
    Override("samples", "samples", "scenarios to generate and dialogs to run", type=int, metavar="N"),
    Override("seed", "seed", "seed of every random choice", type=int, metavar="N"),
    Override("workers", "workers", "items processed concurrently", type=int, metavar="N"),
    Override("executor", "executor.type", "where the items of populate, simulate and report run: in this process "
             "(local), or as Ray tasks (ray; pip install 'intellagent[ray]'; executor.address joins a running cluster)",
             choices=("local", "ray")),
    Override("max_cost", "budget.max_cost_usd", "stop starting LLM calls past this cost (exit 3)", type=float,
             metavar="USD"),
    Override("fail_under", "report.fail_under", "exit 1 if the pass rate (0-1) is below RATE", type=float,
             metavar="RATE"),
    Override("trials", "simulate.trials", "play every event K times, each with its own seed for the user; reports "
             "pass^k and the flip rate (auto: one or two each, more only where the verdicts flipped or straddle a gate "
             "threshold, up to simulate.trials_budget dialogs)", type=int | Literal["auto"], metavar="K|auto",
             parse=trial_count),
    Override("calibrate", "calibrate.enabled", "also play mutants of the chatbot that each break one rule on purpose, "
             "and report how many the run caught (automatic for the llm_agent chatbot; see calibrate: in the config)",
             type=bool, switch=True),
    Override("min_detection", "report.min_detection", "exit 1 if the share of mutants caught (0-1) is below RATE "
             "(with --calibrate)", type=float, metavar="RATE"),
    Override("min_outcome", "report.min_outcome", "exit 1 if the outcome pass rate (0-1) is below RATE: the share of "
             "graded dialogs that left the world as the event's verified expected outcome does and said every "
             "expected output", type=float, metavar="RATE"),
    Override("min_outcome_over_floor", "report.min_outcome_over_floor", "exit 1 if the outcome pass rate stands "
             "less than DELTA above its floor, what a chatbot that does nothing would score on the same graded "
             "dialogs (0.5: 50 points above it)", type=float, metavar="DELTA"),
    Override("min_production", "report.min_production", "exit 1 if the share of production conversations "
             "(--transcripts) that broke no policy (0-1) is below RATE", type=float, metavar="RATE"),
    Override("gate_on", "report.gate_on", "compare --fail-under, --min-outcome and the minimums with the rate (point) "
             "or the low end of its 95% interval (lower_bound)", choices=("point", "lower_bound")),
    Override("rollouts", "rollouts.enabled", "after simulate, search the chatbot's turns on every graded event (beam "
             "search rewarded by the expected outcome) and write training data: training/sft.jsonl, "
             "preferences.jsonl, kto.jsonl (llm_agent and openai chatbots; see rollouts: in the config)",
             type=bool, switch=True),
    Override("red_team", "red_team.enabled", "after simulate, attack every rule through the conversation (an "
             "attacker that plans, reads refusals and backtracks) and through the data (an instruction planted in a "
             "record the chatbot reads), and report how often each rule breaks per strategy (see red_team: in the "
             "config)", type=bool, switch=True),
    Override("max_attack_success", "report.max_attack_success", "exit 1 if a rule's attack success rate (0-1) is "
             "above RATE (with --red-team)", type=float, metavar="RATE"),
    Override("baseline", "report.baseline", "compare with an earlier run; exit 1 if a policy got significantly worse",
             type=Path, metavar="DIR", to_config=_absolute),
    Override("labels", "report.labels", "a labels.jsonl of a person's readings of the run's dialogs: the report gives "
             "how far the judge and the audit of the simulated user agree with them (default: the run folder's)",
             type=Path, metavar="FILE", to_config=_absolute),
    Override("min_category", "report.min_category", "minimum pass rate per policy category; the gate fails below",
             type=dict[str, float], command_line=False),
    Override("min_policy", "report.min_policy", "minimum pass rate per policy id; the gate fails below",
             type=dict[str, float], command_line=False),
    Override("min_persona", "report.min_persona", "minimum pass rate per persona of the users (adversarial: every "
             "adversarial persona's users together); the gate fails below", type=dict[str, float],
             command_line=False),
    Override("tau_data", "tau.data", "a τ-bench task set to play instead of sampled scenarios (given as "
             "--scenarios-from tau:DIR, or scenarios_from='tau:DIR')", type=Path, to_config=_absolute,
             command_line=False, api=False),
    Override("tau_tasks", "tau.tasks", "with --scenarios-from tau:DIR, the tasks to play by τ-bench number, e.g. "
             "0-9,12 (default: all)", metavar="LIST", flag="--tasks"),
    Override("transcripts", "transcripts.path", "also judge the chatbot's real conversations (OpenTelemetry GenAI "
             "spans, Langfuse or LangSmith exports, OpenAI Chat Completions or Responses logs, Anthropic Messages, "
             "chat messages or the plain format; personal data masked first), report production beside the tests, and "
             "keep the failing ones as regression scenarios (regression/); with --stages production,report, judge "
             "them alone, with no test run", type=Path, metavar="FILE", to_config=_absolute),
)
"""Every override, in the order --help lists them."""


def add_flags(parser: argparse.ArgumentParser) -> None:
    """The command line's flag of every override, in a group of its own in --help, each naming the config key it
    replaces."""
    group = parser.add_argument_group("settings of the config", "each replaces the config key named after it")
    for override in OVERRIDES:
        if not override.command_line:
            continue
        shown = f"{override.help} ({override.key})".replace("%", "%%")
        if override.switch:  # None when absent, so that the config's own setting stands
            group.add_argument(override.option, dest=override.name, action="store_true", default=None, help=shown)
        else:
            group.add_argument(override.option, dest=override.name, type=override.parse or override.type,
                               metavar=override.metavar, choices=override.choices, help=shown)


def given(args: argparse.Namespace) -> dict[str, Any]:
    """The overrides the command line gave, by name."""
    return {override.name: getattr(args, override.name) for override in OVERRIDES
            if override.command_line and getattr(args, override.name) is not None}


def documented(function: F) -> F:
    """`function`, which passes its `**overrides` on to `config.apply_overrides`, with each override the API takes
    in its signature (keyword-only, default None) and in a `Keyword Args` section of its docstring."""
    offered = [override for override in OVERRIDES if override.api]
    signature = inspect.signature(function)
    kept = [parameter for parameter in signature.parameters.values() if parameter.kind is not parameter.VAR_KEYWORD]
    keywords = [inspect.Parameter(override.name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                  annotation=_annotation(override) | None) for override in offered]
    function.__signature__ = signature.replace(parameters=[*kept, *keywords])  # type: ignore[attr-defined]
    shown = [f"        {override.name}{f' ({override.metavar})' if override.metavar else ''}: {override.help} "
             f"(`{override.key}`)." for override in offered]
    function.__doc__ = "\n".join([(function.__doc__ or "").rstrip(), "", "    Keyword Args:", *shown, "    "])
    return function


def _annotation(override: Override) -> Any:
    """The type the API takes for `override`: one of its choices, when it has them."""
    return Literal[override.choices] if override.choices else override.type
