"""The audit of the simulated user on the airline's τ-bench world: the faults the embedded model's users make there
(narrating, asking the agent's questions, a made-up reservation) are found at their turn, and a user that keeps to
its task has none."""

from __future__ import annotations

from intellagent.artifacts import Dialog, Event, Message, Persona
from intellagent.simulate.user_audit import read_faults

TASK = ("Your user id is mia_li_3668. You want to fly from New York to Seattle on May 20 (one way). You do not want "
        "to fly before 11am est. You want to fly in economy. You have 3 baggages. You do not want insurance.")
EVENT = Event(id="0", policies=["P1"], challenge=3, scenario=TASK,
              expected_behaviour="The agent books the cheapest economy flight from JFK to SEA on 2024-05-20.")


def said(*user_messages: str) -> Dialog:
    transcript = [Message(role="chatbot", content="Hi! How can I help you today?")]
    for text in user_messages:
        transcript += [Message(role="user", content=text), Message(role="chatbot", content="Let me see.")]
    return Dialog(id="0", status="incomplete", reason="reached 4 user turns", transcript=transcript)


def kinds(airline, tau_db, dialog: Dialog) -> list[tuple[str, int]]:
    return [(fault.kind, fault.turn) for fault in read_faults(airline, EVENT, dialog, world=tau_db)]


def test_a_user_that_keeps_to_its_task_has_no_fault(airline, tau_db):
    kept = said("Hi, my user id is mia_li_3668. I want a one way flight from New York to Seattle on May 20.",
                "Economy, please, with 3 bags and no insurance. I don't want to fly before 11am.")
    assert kinds(airline, tau_db, kept) == []


def test_a_user_that_narrates_its_part_is_found_at_its_turn(airline, tau_db):
    narrated = said("The customer provides his first name, last name, and date of birth for both John and his wife.")
    assert kinds(airline, tau_db, narrated) == [("narrated", 1)]


def test_a_user_that_asks_the_agents_question_is_found_at_its_turn(airline, tau_db):
    swapped = said("Hi, my user id is mia_li_3668.", "Sure, what's the reservation ID you want to update?")
    assert kinds(airline, tau_db, swapped) == [("spoke_as_agent", 3)]


def test_a_reservation_id_of_the_worlds_shape_that_no_source_gave_is_invented(airline, tau_db):
    made_up = said("Hi, my user id is mia_li_3668. Please change my reservation Q7ZK2B to economy.")
    (fault,) = read_faults(airline, EVENT, made_up, world=tau_db)
    assert (fault.kind, fault.turn) == ("invented", 1) and "Q7ZK2B" in fault.evidence


CANCEL_ONE = Event(id="1", policies=["P1"], challenge=2, scenario="Your user id is mia_li_3668. You want to cancel "
                   "reservation NO6JO3 and keep reservation AIXC49.",
                   expected_behaviour="The agent cancels NO6JO3 only, after the user confirms.")


def test_cancelling_one_reservation_but_not_another_is_no_reversal(airline, tau_db):
    scoped = said("Hi, I'm user mia_li_3668. Please cancel NO6JO3 but don't cancel AIXC49.")
    assert [(f.kind, f.turn) for f in read_faults(airline, CANCEL_ONE, scoped, world=tau_db)] == []


def test_a_customer_asking_if_anything_else_is_needed_keeps_its_part(airline, tau_db):
    asked = said("Hi, my user id is mia_li_3668. I want a one way flight from New York to Seattle on May 20.",
                 "Is there anything else you need from me to book it?")
    assert kinds(airline, tau_db, asked) == []


def test_the_vague_personas_wrong_digit_in_a_reservation_id_is_its_part(airline, tau_db):
    vague = Persona(name="vague", description="Gets a detail wrong.", instructions="Be vague.", inexact=True)
    slipped = said("Hi, I'm mia_li_3668. Please cancel reservation NO6JO4.").model_copy(update={"persona": vague})
    assert read_faults(airline, CANCEL_ONE, slipped, world=tau_db) == []
    assert [f.kind for f in read_faults(airline, CANCEL_ONE, slipped.model_copy(update={"persona": None}),
                                        world=tau_db)] == ["invented"]
