"""Each kind of rule, written by hand as a rules file writes it: silent on a dialog that keeps it, and a finding
with its evidence on one that breaks it."""

from __future__ import annotations

from intellagent.environment import Environment
from tests.rules.kinds import findings, rule

PAID = "store_payments: [{order_id: '#W1000001', method_id: credit_card_1000001, status: paid}]"


def test_an_order_wants_the_first_call_on_the_same_entity(returns: Environment) -> None:
    written = rule("{kind: order, before: get_order, then: cancel_order, "
                   "same: {before: order_id, then: order_id}}")

    kept = findings(written, returns, "[{call: get_order, args: {order_id: '#W1'}}, "
                                      "{call: cancel_order, args: {order_id: '#W1'}}]")
    broken = findings(written, returns, "[{call: get_order, args: {order_id: '#W2'}}, "
                                        "{call: cancel_order, args: {order_id: '#W1'}}]")

    assert kept == []
    assert [f.message for f in broken] == ["cancel_order was called before any successful get_order with "
                                           "order_id '#W1'"]


def test_a_precondition_on_rows_holds_when_the_row_the_argument_names_has_the_value(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: cancel_order, any_of: [{argument: order_id, table: store_orders, "
                   "key: order_id, column: status, op: eq, value: pending}]}")
    call = "[{call: cancel_order, args: {order_id: '#W1'}}]"

    kept = findings(written, returns, call, world="{store_orders: [{order_id: '#W1', status: pending}]}")
    (broken,) = findings(written, returns, call, world="{store_orders: [{order_id: '#W1', status: processed}]}")

    assert kept == []
    assert broken.row == "store_orders row (order_id='#W1')" and "status is 'processed'" in broken.message


def test_a_precondition_with_alternatives_wants_one_of_the_earlier_calls_with_matching_arguments(
        returns: Environment) -> None:
    written = rule("{kind: precondition, tool: get_customer, any_of: ["
                   "{call: find_customer, same: {result.customer_id: customer_id}}, "
                   "{call: get_order, same: {result.customer_id: customer_id}}]}")
    looked_up = "{call: get_order, args: {order_id: '#W1'}, result: {customer_id: '1000000001'}}"

    kept = findings(written, returns, f"[{looked_up}, {{call: get_customer, args: {{customer_id: '1000000001'}}}}]")
    broken = findings(written, returns, f"[{looked_up}, {{call: get_customer, args: {{customer_id: '1000000002'}}}}]")

    assert kept == []
    assert broken[0].message.startswith("get_customer was called, allowed only when one of: an earlier find_customer")


def test_a_failed_earlier_call_establishes_nothing(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: get_customer, any_of: [{call: find_customer}]}")

    broken = findings(written, returns, "[{call: find_customer, args: {email: a@b.c}, result: 'Error: no customer'}, "
                                        "{call: get_customer, args: {customer_id: '1'}}]")

    assert len(broken) == 1


def test_a_comparison_joins_an_argument_to_the_rows_another_argument_reaches(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: return_item, any_of: [{left: method_id, op: in, right: {rows: "
                   "store_payments, where: {order_id: order_id}, column: method_id}}]}")

    kept = findings(written, returns, "[{call: return_item, args: {order_id: '#W1000001', line_id: 1, method_id: "
                                      "credit_card_1000001}}]", world=f"{{{PAID}}}")
    broken = findings(written, returns, "[{call: return_item, args: {order_id: '#W1000001', line_id: 1, method_id: "
                                        "paypal_1000002}}]", world=f"{{{PAID}}}")

    assert kept == []
    assert broken[0].message.endswith("method_id is 'paypal_1000002', store_payments.method_id where order_id = "
                                      "order_id is 'credit_card_1000001'")


def test_a_comparison_reaches_rows_through_an_earlier_calls_result_and_a_json_column(returns: Environment) -> None:
    # The exchanged variant keeps the colour of the customer's saved preference... here: the colour the product
    # look-up returned for the variant first shown, read from the variants' JSON options.
    written = rule("{kind: precondition, tool: exchange_item, any_of: [{left: {rows: store_variants, where: "
                   "{variant_id: variant_id}, column: options.color}, op: eq, right: {result: "
                   "get_product.variants.options.color}}]}")
    world = ("{store_variants: [{variant_id: '4000000001', options: {color: blue, size: M}}, "
             "{variant_id: '4000000002', options: {color: red, size: M}}]}")
    shown = "{call: get_product, args: {product_id: '1'}, result: {variants: [{options: {color: blue, size: L}}]}}"

    kept = findings(written, returns, f"[{shown}, {{call: exchange_item, args: {{order_id: '#W1', line_id: 1, "
                                      "variant_id: '4000000001'}}]", world=world)
    broken = findings(written, returns, f"[{shown}, {{call: exchange_item, args: {{order_id: '#W1', line_id: 1, "
                                        "variant_id: '4000000002'}}]", world=world)

    assert kept == []
    assert len(broken) == 1


def test_different_compares_two_lists_of_one_length_item_by_item(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: exchange_item, any_of: [{left: {arg: line_id}, op: different, "
                   "right: {rows: store_order_lines, where: {variant_id: variant_id}, column: line_id}}]}")
    world = "{store_order_lines: [{line_id: 3, variant_id: '4000000001'}]}"

    kept = findings(written, returns, "[{call: exchange_item, args: {order_id: '#W1', line_id: 4, variant_id: "
                                      "'4000000001'}}]", world=world)
    broken = findings(written, returns, "[{call: exchange_item, args: {order_id: '#W1', line_id: 3, variant_id: "
                                        "'4000000001'}}]", world=world)

    assert kept == [] and len(broken) == 1


def test_subset_wants_every_value_among_the_others(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: return_item, any_of: [{left: line_id, op: subset, right: {rows: "
                   "store_order_lines, where: {order_id: order_id}, column: line_id}}]}")
    world = "{store_order_lines: [{line_id: 1, order_id: '#W1'}, {line_id: 2, order_id: '#W1'}]}"

    kept = findings(written, returns, "[{call: return_item, args: {order_id: '#W1', line_id: 2, method_id: m}}]",
                    world=world)
    broken = findings(written, returns, "[{call: return_item, args: {order_id: '#W1', line_id: 9, method_id: m}}]",
                      world=world)

    assert kept == [] and len(broken) == 1


def test_a_sum_of_rows_is_compared_with_a_limit(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: cancel_order, any_of: [{left: {rows: store_payments, where: "
                   "{order_id: order_id}, column: amount, measure: sum}, op: le, right: {value: 500}}]}")
    call = "[{call: cancel_order, args: {order_id: '#W1'}}]"

    kept = findings(written, returns, call, world="{store_payments: [{order_id: '#W1', amount: 200}, "
                                                  "{order_id: '#W1', amount: 300}]}")
    broken = findings(written, returns, call, world="{store_payments: [{order_id: '#W1', amount: 200}, "
                                                    "{order_id: '#W1', amount: 301}]}")

    assert kept == [] and len(broken) == 1


def test_a_count_of_rows_is_compared_with_a_limit(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: remove_item, any_of: [{left: {rows: store_order_lines, where: "
                   "{order_id: order_id}, column: line_id, measure: count}, op: ge, right: {value: 2}}]}")
    call = "[{call: remove_item, args: {order_id: '#W1', line_id: 1}}]"

    kept = findings(written, returns, call, world="{store_order_lines: [{line_id: 1, order_id: '#W1'}, "
                                                  "{line_id: 2, order_id: '#W1'}]}")
    broken = findings(written, returns, call, world="{store_order_lines: [{line_id: 1, order_id: '#W1'}]}")

    assert kept == [] and len(broken) == 1


def test_a_comparison_that_reaches_no_row_is_never_a_breach(returns: Environment) -> None:
    written = rule("{kind: precondition, tool: return_item, any_of: [{left: method_id, op: in, right: {rows: "
                   "store_payments, where: {order_id: order_id}, column: method_id}}]}")

    assert findings(written, returns, "[{call: return_item, args: {order_id: '#W9', line_id: 1, method_id: m}}]",
                    world=f"{{{PAID}}}") == []


def test_a_bound_on_rows_left_counts_them_once_the_dialog_ended(returns: Environment) -> None:
    written = rule("{kind: bound, tool: remove_item, measure: rows, argument: order_id, table: store_order_lines, "
                   "key: order_id, op: ge, value: 1}")
    call = "[{call: remove_item, args: {order_id: '#W1', line_id: 1}}]"

    kept = findings(written, returns, call, ended="{store_order_lines: [{line_id: 2, order_id: '#W1'}]}")
    broken = findings(written, returns, call, ended="{store_order_lines: []}")

    assert kept == []
    assert broken[0].message == "remove_item: 0 store_order_lines rows are left for order_id '#W1'; the limit is ge 1"


def test_a_forbidden_call_in_a_state_is_found_only_in_that_state(returns: Environment) -> None:
    written = rule("{kind: forbidden, tool: cancel_order, when: [{argument: order_id, table: store_orders, key: "
                   "order_id, column: status, op: eq, value: processed}]}")
    call = "[{call: cancel_order, args: {order_id: '#W1'}}]"

    kept = findings(written, returns, call, world="{store_orders: [{order_id: '#W1', status: pending}]}")
    broken = findings(written, returns, call, world="{store_orders: [{order_id: '#W1', status: processed}]}")

    assert kept == []
    assert "which the policy forbids" in broken[0].message and "processed" in broken[0].message


def test_a_disclosure_before_the_call_that_entitles_it_is_found_with_the_row(returns: Environment) -> None:
    written = rule("{kind: disclosure, table: store_orders, key: order_id, fields: [status], after: "
                   "[{call: find_customer, same: {result.customer_id: customer_id}}]}")
    world = "{store_orders: [{order_id: '#W1000001', customer_id: '1000000001', status: delivered}]}"
    asked = "{user: 'Where is #W1000001?'}"
    found = "{call: find_customer, args: {email: a@b.c}, result: {customer_id: '1000000001'}}"

    kept = findings(written, returns, f"[{asked}, {found}, {{chatbot: 'It was delivered.'}}]", world=world)
    (broken,) = findings(written, returns, f"[{asked}, {{chatbot: 'It was delivered.'}}, {found}]", world=world)

    assert kept == []
    assert broken.turn == 2 and broken.row == "store_orders row (order_id='#W1000001')"


def test_a_row_nobody_spoke_of_is_not_disclosed_by_a_word_it_shares(returns: Environment) -> None:
    written = rule("{kind: disclosure, table: store_orders, key: order_id, fields: [status], after: "
                   "[{call: find_customer}]}")
    world = "{store_orders: [{order_id: '#W1000001', status: delivered}]}"

    assert findings(written, returns, "[{user: 'Do you deliver?'}, {chatbot: 'Yes, everything is delivered.'}]",
                    world=world) == []


def test_a_confirmation_wants_the_yes_to_a_turn_that_named_the_action_and_its_key_arguments(
        returns: Environment) -> None:
    written = rule("{kind: confirmation, tool: cancel_order, arguments: [order_id], words: [cancel]}")
    call = "{call: cancel_order, args: {order_id: '#W1000001'}}"

    kept = findings(written, returns, f"[{{chatbot: 'Shall I cancel order #W1000001?'}}, {{user: 'Yes.'}}, {call}]")
    unnamed = findings(written, returns, f"[{{chatbot: 'Shall I cancel it?'}}, {{user: 'Yes.'}}, {call}]")
    elsewhere = findings(written, returns, f"[{{chatbot: 'Shall I cancel order #W1000001?'}}, {{user: 'Yes.'}}, "
                                           f"{{chatbot: 'Anything else?'}}, {{user: 'Yes, one thing.'}}, {call}]")

    assert kept == []
    assert "did not name its order_id (#W1000001)" in unnamed[0].message
    assert "did not name the action (cancel)" in elsewhere[0].message


def test_a_procedure_finds_a_required_step_missing_before_the_step_after_it(returns: Environment) -> None:
    written = rule("{kind: procedure, flow: cancellation, steps: [{id: S1, kind: call, tool: get_order, required: "
                   "true}, {id: S2, kind: confirm}, {id: S3, kind: call, tool: cancel_order}], edges: [{before: S1, "
                   "after: S2}, {before: S2, after: S3}]}")
    yes = "{chatbot: 'Shall I cancel #W1?'}, {user: 'Yes.'}"

    kept = findings(written, returns, f"[{{call: get_order, args: {{order_id: '#W1'}}}}, {yes}, "
                                      "{call: cancel_order, args: {order_id: '#W1'}}]")
    (broken,) = findings(written, returns, f"[{yes}, {{call: cancel_order, args: {{order_id: '#W1'}}}}]")

    assert kept == []
    assert broken.message == ("cancellation: confirm came with no call get_order before it, which the procedure "
                              "requires")


def test_a_yes_to_another_change_does_not_enter_a_procedure_whose_own_call_never_came(returns: Environment) -> None:
    written = rule("{kind: procedure, flow: cancellation, steps: [{id: S1, kind: call, tool: get_order, required: "
                   "true}, {id: S2, kind: confirm}, {id: S3, kind: call, tool: cancel_order}], edges: [{before: S1, "
                   "after: S2}, {before: S2, after: S3}]}")
    yes = "{chatbot: 'Shall I remove line 1 from #W1?'}, {user: 'Yes.'}"

    other_change = findings(written, returns, f"[{yes}, {{call: remove_item, args: {{order_id: '#W1', line_id: 1}}}}]")
    (cancelled,) = findings(written, returns, f"[{yes}, {{call: cancel_order, args: {{order_id: '#W1'}}}}]")

    assert other_change == []
    assert "confirm came with no call get_order before it" in cancelled.message


def test_a_procedure_without_a_required_step_rules_on_nothing(returns: Environment) -> None:
    written = rule("{kind: procedure, flow: cancellation, steps: [{id: S1, kind: call, tool: get_order}, {id: S2, "
                   "kind: call, tool: cancel_order}], edges: [{before: S1, after: S2}]}")

    assert findings(written, returns, "[{call: cancel_order, args: {order_id: '#W1'}}]") == []
