"""Categories and challenge scores checked against each rule's own text, whatever the model said."""

from __future__ import annotations

from conftest import catalog_of, configure, rules, run_describe, script_document

from intellagent.describe.evidence import degenerate, estimated_challenge, evidenced_category

CONSENT = "Before any payment, say what you are about to do and wait for the user to explicitly agree ('yes')."
IDENTITY = "Confirm the user's identity by asking for the user id before looking anything up."
HANDOFF = "Transfer the user to a human agent only when the request is outside what the tools can do."
COMPENSATION = "Offer $100 per passenger for a cancelled flight, and $50 for a delay, only if the user complains."


def test_a_consent_rule_filed_elsewhere_is_refiled_and_the_change_noted(scripted_config, script, folder):
    script_document(script, flows={"Orders": [
        {"text": CONSENT, "category": "authentication", "challenge": 2},
        {"text": HANDOFF, "category": "tool_usage", "challenge": 3},
        {"text": IDENTITY, "category": "authentication", "challenge": 2},
    ]})
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert [p.category for p in catalog.policies] == ["user_consent", "escalation", "authentication"]
    assert catalog.corrected == [
        "P01: category authentication → user_consent (the rule's own words call for it)",
        "P02: category tool_usage → escalation (the rule's own words call for it)",
    ]


def test_degenerate_challenge_scores_are_estimated_from_the_rules(scripted_config, script, folder):
    flat = [{"text": text, "category": "payment", "challenge": 1} for text in (CONSENT, COMPENSATION, IDENTITY)]
    script_document(script, flows={"Orders": [*flat, *rules(2, challenge=1)]})
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert [p.challenge for p in catalog.policies][:3] == [
        estimated_challenge(CONSENT), estimated_challenge(COMPENSATION), estimated_challenge(IDENTITY)]
    assert len({p.challenge for p in catalog.policies}) >= 3
    assert catalog.corrected[0].startswith("challenge: the model's scores were degenerate (5× 1)")


def test_a_spread_the_model_gave_is_kept(scripted_config, script, folder):
    script_document(script, flows={"Orders": [*rules(2, challenge=1), *rules(2, start=3, challenge=4)]})
    run_describe(configure(scripted_config, samples=1), folder, script)
    catalog = catalog_of(folder)
    assert [p.challenge for p in catalog.policies] == [1, 1, 4, 4] and catalog.corrected == []


def test_the_category_cues_need_the_users_agreement_or_a_person_to_hand_over_to():
    assert evidenced_category(CONSENT) == "user_consent"
    assert evidenced_category("Get the customer's explicit confirmation before cancelling.") == "user_consent"
    assert evidenced_category(IDENTITY) is None
    assert evidenced_category("Transfer the payment to the original card.") is None
    assert evidenced_category(HANDOFF) == "escalation"


def test_a_rule_that_allows_stating_only_what_the_tools_returned_is_knowledge_extraction():
    grounding = "Share only what the user told you or what your tools return. Do not add outside knowledge."
    assert evidenced_category(grounding) == "knowledge_extraction"
    assert evidenced_category("Never make anything up.") == "knowledge_extraction"
    assert evidenced_category("Only change what the system shows as available.") is None
    assert evidenced_category("A user qualifies for a certificate only if they are a gold member.") is None


def test_a_grounding_check_left_unmapped_enforces_only_the_rules_that_say_so(scripted_config, script, folder):
    grounding = "Share only what the user told you or what your tools return."
    compensation = "A user qualifies for a certificate only if they are a gold member."
    script_document(script, flows={"Orders": [
        *rules(2), {"text": grounding, "category": "data_privacy", "challenge": 2},
        {"text": compensation, "category": "knowledge_extraction", "challenge": 3}]},
        checks={"grounded_facts": ["P01", "P02", "P03", "P04"]})
    run_describe(configure(scripted_config, samples=1), folder, script)

    catalog = catalog_of(folder)
    assert catalog.checks["grounded_facts"] == ["P03"]  # refiled on its words; P04 was filed, but says nothing
    assert catalog.checks["claimed_changes_were_made"] == ["P03"]


def test_challenge_estimates_grow_with_numbers_and_conditions_and_stop_at_five():
    assert estimated_challenge("Be polite.") == 1
    assert estimated_challenge(COMPENSATION) == 5
    assert estimated_challenge(IDENTITY) == 2
    assert estimated_challenge("Hand over when, and only when, the tools cannot help; only then.") == 3  # each once


def test_scores_are_degenerate_only_when_most_are_one_value_among_enough_rules():
    assert degenerate([1, 1, 1, 2])
    assert not degenerate([1, 1, 2, 3])
    assert not degenerate([1, 1, 1])
