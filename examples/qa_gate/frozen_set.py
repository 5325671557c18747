"""A frozen test set: describe and populate once, then judge every build of the chatbot on the same scenarios.

Run from the project folder: python -m examples.qa_gate.frozen_set
"""

from pathlib import Path

import intellagent
from examples.qa_gate.chatbot import careful, hasty
from intellagent.reports.sections import BASELINE

CONFIG = "configs/airline.yml"
FROZEN = Path("results/frozen-airline")  # commit it: JSON, SQLite files and the recorded LLM calls

if not (FROZEN / "events.jsonl").exists():  # once: the scenarios and their databases
    intellagent.freeze(CONFIG, output=FROZEN)

# Each build: only simulate and report, on the frozen scenarios; build 2 is compared with build 1.
first = intellagent.evaluate(CONFIG, chatbot=careful, scenarios_from=FROZEN, output="results/build-1")
second = intellagent.evaluate(CONFIG, chatbot=hasty, scenarios_from=FROZEN, output="results/build-2",
                              baseline="results/build-1")
for name, report in (("build 1", first), ("build 2", second)):
    print(f"{name}: {report.overall.pass_rate.passed} of {report.overall.pass_rate.total} dialogs passed")
comparison = BASELINE.of(second)  # the report's baseline section: build 2 against build 1
print("violated in build 2, not in build 1:", ", ".join(comparison.new_violations) or "none")

# Build 2 once more, unchanged: every LLM call is answered from the ones recorded in the frozen set.
again = intellagent.evaluate(CONFIG, chatbot=hasty, scenarios_from=FROZEN, output="results/build-2-again",
                             replay=True)
print(f"replayed: {again.overall.usage.cached} calls answered from the cache, {again.overall.usage.calls} sent")
