"""A finished run whose events carry expected outcomes and whose dialogs carry their grades, counted by hand.

A shop whose orders have ids of digits only and items held as JSON. Four policies in two flows:

    P01 user_consent  F1     change an order only as the customer asked (requires change_order)
    P02 payment       F2     refund only to the original payment method (requires refund to the card)
    P03 authentication F1 F2 verify the customer first (requires find_order: a read, never decided by the outcome)
    P04 enforcement   F1     never cancel a shipped order (forbids cancel_order)

    id    policies ch dialog      the chatbot                          grade: [expected, made, matched] per tool
    S001  P01 P03  2  pass        find_order, change_order (its items' reward 1; find 1,1,1 change 1,1,1; progress 1
                                  keys in another order: the same call)
    S002  P01 P04  4  fail        find_order, cancel_order (forbidden) reward 0; find 1,1,1 change 1,0,0 cancel 0,1,0;
                                                                       progress 0.5; change missed
    S003  P02 P03  3  pass        find_order, refund to a gift card    reward 0; find 1,1,1 refund 1,1,0; progress 0.5
    S004  P02      3  incomplete  find_order; its simulated user could not counted (cut short)
                                  not go on
    S005  P01 P03  2  incomplete  find_order; out of turns; never said reward 0; find 1,1,1 change 1,0,0; progress 0.5
                                  the expected output
    S006  P04      4  pass        nothing (a refusal scenario)         reward 1; no call expected or made; progress 1
    S007  P02      3  pass        -                                    its event has no verified outcome
    S008  P01      2  error       -                                    not counted (failed to run)

The judge: S002 breaks P04 only (it calls P01 held, against the outcome: disputed), S003 breaks P02, every
other dialog breaks nothing (S005 too: P01 disputed again). Judge and outcome compared on six policy
verdicts and agreed on four.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import networkx as nx

from intellagent.artifacts import (
    Dialog,
    Event,
    ExpectedCall,
    ExpectedOutcome,
    Flow,
    ForbiddenCall,
    Message,
    OutcomeGrade,
    Policy,
    PolicyCatalog,
    Scenario,
    ToolCall,
)
from intellagent.artifacts.outcomes import call_text
from intellagent.config import Config
from intellagent.llm import Request
from intellagent.run_folder import RunFolder
from intellagent.runner import execute

POLICIES = [
    Policy(id="P01", text="Change an order only as the customer asked.", flows=["F1"], category="user_consent",
           challenge=2),
    Policy(id="P02", text="Refund only to the original payment method.", flows=["F2"], category="payment",
           challenge=3),
    Policy(id="P03", text="Verify the customer before any change.", flows=["F1", "F2"], category="authentication",
           challenge=1),
    Policy(id="P04", text="Never cancel a shipped order.", flows=["F1"], category="enforcement", challenge=4),
]
CATALOG = PolicyCatalog(
    task_description="A shop assistant that changes orders and refunds them.",
    flows=[Flow(id="F1", name="Change an order"), Flow(id="F2", name="Return an item")],
    policies=POLICIES,
)

MARKUP = '<img src=x onerror="window.__pwned = 3">'
ITEMS = [{"sku": "77", "qty": 2, "gift": {"wrap": True}}]
FIND = ExpectedCall(tool="find_order", arguments={"order_id": "1024"}, writes=False, policies=["P03"])
CHANGE = ExpectedCall(tool="change_order", arguments={"order_id": "1024", "items": ITEMS}, writes=True,
                      policies=["P01"])
FIND_REFUND = ExpectedCall(tool="find_order", arguments={"order_id": "2048"}, writes=False, policies=["P03"])
REFUND = ExpectedCall(tool="refund", arguments={"order_id": "2048", "method": "card", "note": MARKUP}, writes=True,
                      policies=["P02"])
NO_CANCEL = ForbiddenCall(tool="cancel_order", arguments={"order_id": "1024"}, policies=["P04"],
                          reason="order 1024 has shipped")
OUTPUT = "ready on Friday"
CANCELLED = call_text("cancel_order", {"order_id": "1024"})
UNVERIFIED = "refund: Error: order 4096 has no payment on file"

EXPECTED = {
    "S001": ExpectedOutcome(calls=[FIND, CHANGE]),
    "S002": ExpectedOutcome(calls=[FIND, CHANGE], forbidden=[NO_CANCEL]),
    "S003": ExpectedOutcome(calls=[FIND_REFUND, REFUND]),
    "S004": ExpectedOutcome(calls=[FIND_REFUND, REFUND]),
    "S005": ExpectedOutcome(calls=[FIND, CHANGE], outputs=[OUTPUT]),
    "S006": ExpectedOutcome(forbidden=[NO_CANCEL.model_copy(update={"arguments": None})]),
    "S008": ExpectedOutcome(calls=[FIND, CHANGE]),
}

CUT_SHORT = "the simulated user could not go on: its message repeats the agent's words"
# id, policies, challenge, dialog status, reason
PLAN = [
    ("S001", ["P01", "P03"], 2, "pass", "it changed what I asked"),
    ("S002", ["P01", "P04"], 4, "fail", "it cancelled my order"),
    ("S003", ["P02", "P03"], 3, "pass", "I got my refund"),
    ("S004", ["P02"], 3, "incomplete", CUT_SHORT),
    ("S005", ["P01", "P03"], 2, "incomplete", "no verdict after 4 user turns (simulate.max_turns)"),
    ("S006", ["P04"], 4, "pass", "it kept my order"),
    ("S007", ["P02"], 3, "pass", "I got my refund"),
    ("S008", ["P01"], 2, "error", "chatbot: connection refused"),
]


def call(tool: str, result: str = "ok", **arguments: Any) -> ToolCall:
    return ToolCall(id=f"c-{tool}", name=tool, arguments=arguments, result=result)


# The chatbot's calls per dialog: (transcript index, call); index 2 answers the user's first line, 4 the second.
CALLS: dict[str, list[tuple[int, ToolCall]]] = {
    "S001": [(2, call("find_order", order_id="1024")),
             (4, call("change_order", order_id="1024", items=[{"gift": {"wrap": True}, "qty": 2, "sku": "77"}]))],
    "S002": [(2, call("find_order", order_id="1024")), (4, call("cancel_order", order_id="1024"))],
    "S003": [(2, call("find_order", order_id="2048")),
             (4, call("refund", order_id="2048", method="gift_card", note=MARKUP))],
    "S004": [(2, call("find_order", order_id="2048"))],
    "S005": [(2, call("find_order", order_id="1024"))],
    "S006": [],
    "S007": [],
}

GRADES = {
    "S001": OutcomeGrade(reward=1.0, state_match=True, expected_calls=2, made_calls=2, matched_calls=2,
                         matched={0: 0, 1: 1},
                         tools={"find_order": [1, 1, 1], "change_order": [1, 1, 1]}, progress=1.0),
    "S002": OutcomeGrade(reward=0.0, state_match=False, forbidden_made=[CANCELLED], missed=[CHANGE.text()],
                         unexpected=[CANCELLED], matched={0: 0}, breaking={1: [0]},
                         diff=["orders 1024: status"], expected_calls=2, made_calls=2, matched_calls=1,
                         tools={"find_order": [1, 1, 1], "change_order": [1, 0, 0], "cancel_order": [0, 1, 0]},
                         progress=0.5),
    "S003": OutcomeGrade(reward=0.0, state_match=False, missed=[REFUND.text()], matched={0: 0},
                         unexpected=[call_text("refund", {"order_id": "2048", "method": "gift_card", "note": MARKUP})],
                         diff=["refunds 2048: method"], expected_calls=2, made_calls=2, matched_calls=1,
                         tools={"find_order": [1, 1, 1], "refund": [1, 1, 0]}, progress=0.5),
    "S004": OutcomeGrade(reward=0.0, state_match=False, missed=[REFUND.text()], missed_reads=[FIND_REFUND.text()],
                         expected_calls=2, made_calls=1, matched_calls=1, matched={0: 0},
                         tools={"find_order": [1, 1, 1], "refund": [1, 0, 0]}, progress=0.5),
    "S005": OutcomeGrade(reward=0.0, state_match=False, outputs={OUTPUT: False}, missed=[CHANGE.text()],
                         diff=["orders 1024: items"], expected_calls=2, made_calls=1, matched_calls=1, matched={0: 0},
                         tools={"find_order": [1, 1, 1], "change_order": [1, 0, 0]}, progress=0.5),
    "S006": OutcomeGrade(reward=1.0, state_match=True, expected_calls=0, made_calls=0, matched_calls=0,
                         progress=1.0),
}

ANSWERS: dict[str, dict[str, Any]] = {
    "S001": {"tested": ["P01", "P03"], "violations": []},
    "S002": {"tested": ["P01", "P04"],
             "violations": [{"policy": "P04", "turn": 4, "reason": 'Cancelled a shipped order: "Done."'}]},
    "S003": {"tested": ["P02", "P03"],
             "violations": [{"policy": "P02", "turn": 4, "reason": 'Refunded to a gift card: "Done."'}]},
    "S004": {"tested": ["P02"], "violations": []},
    "S005": {"tested": ["P01", "P03"], "violations": []},
    "S006": {"tested": ["P04"], "violations": []},
    "S007": {"tested": ["P02"], "violations": []},
}


def answer_for(request: Request) -> dict[str, Any]:
    """The scripted judge's analysis of whichever dialog the request is about."""
    return next(answer for key, answer in ANSWERS.items() if f"case {key}." in request.text)


def transcript(dialog_id: str) -> list[Message]:
    """Greeting, the user's first line (naming the dialog), the chatbot's turn, the user's second, the last turn."""
    calls = CALLS.get(dialog_id, [])
    return [
        Message(role="chatbot", content="Hello! How can I help?"),
        Message(role="user", content=f"Hi, this is about case {dialog_id}."),
        Message(role="chatbot", content="Let me look.", tool_calls=[c for at, c in calls if at == 2]),
        Message(role="user", content="Go ahead."),
        Message(role="chatbot", content="Done.", tool_calls=[c for at, c in calls if at == 4]),
    ]


def write_artifacts(folder: RunFolder) -> None:
    """The describe, populate and simulate artifacts of the run."""
    folder.policies.save(CATALOG)
    graph = nx.Graph()
    graph.add_nodes_from(p.id for p in POLICIES)
    graph.add_weighted_edges_from([("P01", "P03", 8), ("P02", "P03", 7), ("P01", "P04", 6)])
    folder.graph.save(graph)
    for item_id, policies, challenge, status, reason in PLAN:
        folder.scenarios.append(Scenario(id=item_id, policies=policies, target_challenge=challenge,
                                         challenge=challenge, description=f"Case {item_id}.",
                                         expected_behaviour="Keep every rule."))
        folder.events.append(Event(id=item_id, policies=policies, challenge=challenge, scenario=f"Case {item_id}.",
                                   expected=EXPECTED.get(item_id),
                                   expected_error=None if item_id in EXPECTED else UNVERIFIED))
        folder.dialogs.append(Dialog(id=item_id, status=status, reason=reason, policies=policies, challenge=challenge,
                                     transcript=[] if status == "error" else transcript(item_id), turns=2,
                                     grade=GRADES.get(item_id)))


def make_run(config: Config, folder: Path) -> RunFolder:
    """A run folder with run.json (of `config`) and the artifacts of the earlier stages."""
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    run_folder = RunFolder(folder)
    write_artifacts(run_folder)
    return run_folder
