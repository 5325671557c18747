"""Evaluate a chatbot from Python and gate a release on the report.

Run from the project folder: python -m examples.qa_gate.evaluate_build
"""

import sys

import intellagent
from examples.qa_gate.chatbot import careful

report = intellagent.evaluate(
    "configs/airline.yml",
    chatbot=careful,            # the chatbot under test, as a Python object (instead of the config's)
    output="results/qa-gate",   # the run folder, written as usual: report.html, report.json, junit.xml
    fail_under=0.8,             # the gate: at least 80% of the dialogs pass
)
rate = report.overall.pass_rate
print(f"{rate.passed} of {rate.total} dialogs passed")
for policy in report.policies:
    for violation in policy.violations:
        print(f"{policy.id} broken in dialog {violation.dialog}: {violation.reason}")
sys.exit(0 if report.gate.passed else 1)
