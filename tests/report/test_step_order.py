"""Each dialog read against its flows' procedures: a missing step, a wrong order and an extra step are found at
the turn they show, and a flow's share of dialogs that follow it counts those with none."""

from __future__ import annotations

from intellagent.artifacts import (
    Dialog,
    Flow,
    Message,
    Policy,
    PolicyCatalog,
    SopEdge,
    SopGraph,
    SopStep,
    ToolCall,
)
from intellagent.reports.step_order import step_order

# Order refunds: look the order up, get the user's yes, refund; a refund is no step of the address flow.
REFUNDS = SopGraph(steps=[SopStep(id="S1", kind="call", tool="get_order"),
                          SopStep(id="S2", kind="ask", text="the reason"),
                          SopStep(id="S3", kind="confirm", text="the refund"),
                          SopStep(id="S4", kind="call", tool="refund_order")],
                   edges=[SopEdge(before="S1", after="S2"), SopEdge(before="S2", after="S3"),
                          SopEdge(before="S3", after="S4")])
ADDRESS = SopGraph(steps=[SopStep(id="S1", kind="call", tool="get_order"),
                          SopStep(id="S2", kind="call", tool="change_address")],
                   edges=[SopEdge(before="S1", after="S2", condition="the order has not shipped")])
CATALOG = PolicyCatalog(
    task_description="A shop.",
    flows=[Flow(id="F1", name="Refunds", sop=REFUNDS), Flow(id="F2", name="Address", sop=ADDRESS),
           Flow(id="F3", name="Small talk")],
    policies=[Policy(id="P01", text="Refund only after a yes.", flows=["F1"], category="user_consent", challenge=2),
              Policy(id="P02", text="Change the address of unshipped orders.", flows=["F2"],
                     category="company_policy", challenge=2)])

LOOKUP = ("get_order", {"order_id": "1001"})
REFUND = ("refund_order", {"order_id": "1001"})
MOVE = ("change_address", {"order_id": "1001", "address": "1 Main St"})


def dialog(name: str, policies: list[str], turns: list[tuple[str, str, list[tuple[str, dict]]]]) -> Dialog:
    return Dialog(id=name, status="pass", policies=policies, transcript=[
        Message(role=role, content=content, tool_calls=[ToolCall(id=f"{name}{n}.{i}", name=tool, arguments=args,
                                                                 result="ok") for i, (tool, args) in enumerate(calls)])
        for n, (role, content, calls) in enumerate(turns)])


def refund(name: str, *, lookup: bool = True, ask_first: bool = True, extra: bool = False) -> Dialog:
    first = [LOOKUP] if lookup else []
    act = [REFUND, *([MOVE] if extra else [])]
    if ask_first:
        return dialog(name, ["P01"], [("chatbot", "Hi!", first), ("user", "Refund 1001.", []),
                                      ("chatbot", "I will refund order 1001. Shall I?", []),
                                      ("user", "Yes, please go ahead.", []), ("chatbot", "Refunded.", act)])
    return dialog(name, ["P01"], [("chatbot", "Hi!", first), ("user", "Refund 1001.", []),
                                  ("chatbot", "Refunded. Anything else?", act), ("user", "Yes, please go ahead.", [])])


def deviations(found: Dialog) -> list[tuple[str, str, int | None]]:
    (refunds, _) = step_order(CATALOG, [found])
    return [(d.kind, d.step, d.turn) for d in refunds.deviations]


def test_a_dialog_that_takes_every_step_in_order_follows_its_flow() -> None:
    (refunds, address) = step_order(CATALOG, [refund("kept")])
    assert refunds.deviations == [] and (refunds.followed.count, refunds.followed.total) == (1, 1)
    assert address.dialogs == 0


def test_a_step_the_procedure_puts_first_that_never_came_is_missing_once_where_first_needed() -> None:
    assert deviations(refund("hasty", lookup=False)) == [("missing", "call get_order", 3)]  # once, at the yes


def test_a_call_before_the_yes_the_procedure_puts_first_is_in_the_wrong_order() -> None:
    assert deviations(refund("early", ask_first=False)) == [("wrong_order", "call refund_order", 2)]


def test_a_call_of_another_flows_procedure_is_an_extra_step() -> None:
    assert deviations(refund("wandering", extra=True)) == [("extra", "call change_address", 4)]


def test_a_conditional_order_is_read_for_its_order_but_its_absence_is_no_missing_step() -> None:
    moved = dialog("moved", ["P02"], [("chatbot", "Hi!", []), ("user", "Move it.", []), ("chatbot", "Moved.", [MOVE])])
    (_, address) = step_order(CATALOG, [moved])
    assert address.deviations == [] and address.followed.count == 1


def test_a_conditional_order_taken_the_other_way_round_is_a_wrong_order() -> None:
    moved = dialog("moved", ["P02"], [("chatbot", "Hi!", []), ("user", "Move it.", []), ("chatbot", "Moved.", [MOVE]),
                                      ("user", "Is it shipped?", []), ("chatbot", "Not yet.", [LOOKUP])])
    (_, address) = step_order(CATALOG, [moved])
    assert [(d.kind, d.step, d.turn) for d in address.deviations] == [("wrong_order", "call change_address", 2)]


def test_the_share_that_follows_counts_the_dialogs_with_no_deviation_and_flows_without_procedure_are_left_out() -> None:
    found = step_order(CATALOG, [refund("kept"), refund("hasty", lookup=False), refund("early", ask_first=False)])
    assert [flow.id for flow in found] == ["F1", "F2"]
    assert (found[0].followed.count, found[0].followed.total, found[0].steps) == (1, 3, 4)
