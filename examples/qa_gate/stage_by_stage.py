"""The stages one by one: each reads the artifacts of the one before from the run folder, and returns its own.

Run from the project folder: python -m examples.qa_gate.stage_by_stage
"""

from examples.qa_gate.chatbot import careful
from intellagent.api import describe, populate, report, simulate

CONFIG, RUN = "configs/airline.yml", "results/stage-by-stage"

described = describe(CONFIG, output=RUN)                  # policies.json, graph.json, scenarios.jsonl
for policy in described.catalog.policies:
    print(policy.id, policy.category, policy.text)
events = populate(CONFIG, output=RUN)                     # events.jsonl and each event's world in events/
dialogs = simulate(CONFIG, output=RUN, chatbot=careful)   # dialogs.jsonl
final = report(CONFIG, output=RUN)                        # report.json, report.html, junit.xml
print(f"{len(events)} events, {len(dialogs)} dialogs, {final.overall.pass_rate.passed} passed")
