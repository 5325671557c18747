"""training/README.md: the data card of a run's training files, counted from the records written beside it.

It says what each file holds and which trainer reads it, how the searched paths scored, how the records spread
over the rules and flows, and what was left out and why, so that a reader can judge the data before training on
it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from intellagent.artifacts import PolicyCatalog, Rollout
from intellagent.artifacts.training import ExampleSource
from intellagent.reports.text import counted
from intellagent.rollouts.training_context import TrainingContext
from intellagent.rollouts.training_data import POSITIVE, TrainingData


def data_card(data: TrainingData, rollouts: Sequence[Rollout], context: TrainingContext,
              catalog: PolicyCatalog | None) -> str:
    """The data card of `data`, made from `rollouts` (rollouts.jsonl) under `context`; `catalog` names the rules
    and flows."""
    parts = [
        "# Training data\n\nWritten by the rollouts of this run (`--rollouts`) from the search tree of every event "
        "searched (`rollouts/<event>.json`). Every figure below is counted from the files beside this one.\n",
        _files(data),
        _events(rollouts),
        _paths(data),
        _pairs(data, context),
        _spread(data, catalog),
        _left_out(data),
    ]
    return "\n".join(part for part in parts if part)


def _files(data: TrainingData) -> str:
    desirable = sum(example.label for example in data.kto)
    return "## Files\n\n" + _table(("file", "records", "read by"), [
        ("sft.jsonl", len(data.sft), "TRL `SFTTrainer` (conversational, `assistant_only_loss=True`)"),
        ("openai-sft.jsonl", len(data.sft), "OpenAI fine-tuning (supervised)"),
        ("preferences.jsonl", len(data.pairs), "TRL `DPOTrainer`"),
        ("kto.jsonl", f"{len(data.kto)} ({desirable} desirable, {len(data.kto) - desirable} undesirable)",
         "TRL `KTOTrainer`"),
    ])


def _events(rollouts: Sequence[Rollout]) -> str:
    statuses = Counter(rollout.status for rollout in rollouts)
    rows = [(status, statuses[status]) for status in ("ok", "stopped", "skipped", "error") if statuses[status]]
    with_positive = sum(rollout.rewarded > 0 for rollout in rollouts)
    return (f"## Events\n\n{counted(len(rollouts), 'event')}, {with_positive} of them with a positive path.\n\n"
            + _table(("search", "events"), rows))


def _paths(data: TrainingData) -> str:
    ledger = data.ledger
    rewards = Counter("not graded" if reward is None else f"{reward:.2f}" for reward in ledger.rewards)
    return (f"## Paths\n\n{len(ledger.rewards)} paths ended, {ledger.paths[POSITIVE]} of them positives: their "
            "outcome passed above its floor, no program found a breach, the judge found no sampled rule broken and "
            "their simulated user was at no fault.\n\nOutcome reward of the ended paths:\n\n"
            + _table(("reward", "paths"), sorted(rewards.items(), reverse=True)))


def _pairs(data: TrainingData, context: TrainingContext) -> str:
    if not data.pairs:
        return ""
    evidence = Counter(pair.metadata.evidence for pair in data.pairs)
    gaps = Counter(f"{pair.metadata.reward - pair.metadata.rejected_reward:.2f}" for pair in data.pairs)
    return ("## Pairs\n\nWhat says each rejected turn is worse than the chosen one: its outcome failed, a program "
            f"found a breach in it, or its partial reward is lower by the margin ({context.margin:g}) or more.\n\n"
            + _table(("evidence", "pairs"), sorted(evidence.items()))
            + "\nPartial reward of the chosen turn less the rejected one's:\n\n"
            + _table(("gap", "pairs"), sorted(gaps.items(), reverse=True)))


def _spread(data: TrainingData, catalog: PolicyCatalog | None) -> str:
    rules = {policy.id: policy.text for policy in catalog.policies} if catalog else {}
    flows = {flow.id: flow.name for flow in catalog.flows} if catalog else {}
    by_rule = _count(data, lambda source: source.policies)
    by_flow = _count(data, lambda source: source.flows)
    return ("## Rules and flows\n\nRecords per sampled rule and per flow of the event they come from (a record "
            "counts under each rule its event sampled).\n\n"
            + _table(("rule", "text", "sft", "pairs", "kto"),
                     [(key, rules.get(key, ""), *counts) for key, counts in by_rule.items()])
            + "\n" + _table(("flow", "name", "sft", "pairs", "kto"),
                            [(key, flows.get(key, ""), *counts) for key, counts in by_flow.items()]))


def _count(data: TrainingData, keys: Callable[[ExampleSource], list[str]]) -> dict[str, tuple[int, int, int]]:
    """Per key (a rule, a flow) of each record's source, how many SFT examples, pairs and KTO records have it."""
    def tally(sources: Iterable[ExampleSource]) -> Counter[str]:
        return Counter(key for source in sources for key in keys(source))

    files = (tally(e.metadata for e in data.sft), tally(p.metadata for p in data.pairs),
             tally(k.metadata for k in data.kto))
    names = sorted(set().union(*files))
    return {name: (files[0][name], files[1][name], files[2][name]) for name in names}


def _left_out(data: TrainingData) -> str:
    ledger = data.ledger
    paths = [(why, n) for why, n in ledger.paths.most_common() if why != POSITIVE]
    merged = sorted(ledger.merged.items())
    rows = [*(("an ended path", why, n) for why, n in paths),
            *(("a sibling of a positive path's turn", why, n) for why, n in ledger.unpaired.most_common()),
            *((f"a record of {file}", "it repeats one already written", n) for file, n in merged),
            *((("a message of kto.jsonl", "it is labelled both desirable and not after one conversation",
                ledger.both_ways),) if ledger.both_ways else ())]
    if not rows:
        return "## Left out\n\nNothing.\n"
    return "## Left out\n\n" + _table(("what", "why", "how many"), rows)


def _table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table (cells made one line, pipes escaped)."""
    def cell(value: object) -> str:
        return " ".join(str(value).split()).replace("|", "\\|")

    lines = ["| " + " | ".join(header) + " |", "| " + " | ".join("---" for _ in header) + " |"]
    lines += ["| " + " | ".join(cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"
