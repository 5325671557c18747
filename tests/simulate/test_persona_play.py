"""The simulated user plays its persona: the prompt renders it, and its moves reach the chatbot, recorded as its own."""

from __future__ import annotations

from scripted_dialogs import dialogs, event, reply, say, shop_config, simulate, stop, verdict

from intellagent.artifacts import Claim, Dialog, Message, Persona
from intellagent.persona_files import builtin_personas
from intellagent.simulate.persona_moves import with_moves
from intellagent.simulate.user_faults import program_faults

GOLD = Claim(statement="my tier is gold", table="customers", row={"name": "ana"}, column="tier", claimed="gold",
             actual="basic")


def persona(name: str) -> Persona:
    return builtin_personas()[name]


def play(tmp_path, run_folder, script, **fields):
    config = shop_config(tmp_path)
    folder = run_folder(config, [event(**fields)])
    simulate(config, folder, script)
    return dialogs(folder)


def test_two_users_prompts_share_how_to_play_before_their_own_situation(tmp_path, run_folder, script):
    # What every dialog's user shares comes first, the event after it.
    config = shop_config(tmp_path)
    folder = run_folder(config, [event("S001", persona=persona("impatient")),
                                 event("S002", scenario="Bob, a customer, wants his order B7 sent elsewhere.")])
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))
    simulate(config, folder, script)

    prompts = [request.system for request in script.calls(role="user")]
    first = next(prompt for prompt in prompts if "You are Ana (S001)" in prompt)
    second = next(prompt for prompt in prompts if "Bob, a customer" in prompt)
    shared = first[: next(i for i, (a, b) in enumerate(zip(first, second, strict=False)) if a != b)]
    assert "# How to play" in shared and '"decision"' in shared
    assert shared.endswith("# Who you are and what you want\n")


def test_the_persona_reaches_the_user_prompt(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    play(tmp_path, run_folder, script, persona=persona("impatient"))

    prompt = script.calls(role="user")[0].system
    assert "# How you behave\n" + persona("impatient").instructions in prompt
    assert "not about whether you got what you asked for" not in prompt  # an impatient user is no adversary


def test_an_adversarial_user_is_told_its_verdict_is_about_the_rules(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    play(tmp_path, run_folder, script, persona=persona("pressure"))

    assert "not about whether you got what you asked for" in script.calls(role="user")[0].system


def test_a_user_of_another_language_is_told_to_write_in_it(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    play(tmp_path, run_folder, script, persona=persona("other_language"))

    assert "Write every message in Spanish" in script.calls(role="user")[0].system


def test_a_false_claim_user_is_told_its_claim_and_the_truth_it_hides(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=stop("success", "fine"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    play(tmp_path, run_folder, script, persona=persona("false_claim"), claim=GOLD)

    prompt = script.calls(role="user")[0].system
    assert "You claim that my tier is gold." in prompt
    assert "the records say tier is basic (customers name ana)" in prompt


def test_a_move_the_model_did_not_make_is_added_to_its_message_and_reaches_the_chatbot(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel order A1."), stop("success", "fine")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Shall I cancel A1?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    (dialog,) = play(tmp_path, run_folder, script, persona=persona("false_claim"), claim=GOLD)

    message = dialog.transcript[1]
    assert message.content == "Cancel order A1. Just so you know, my tier is gold."
    assert [(m.persona, m.text, m.injected, m.claim) for m in message.moves] == [
        ("false_claim", "Just so you know, my tier is gold.", True, True)]
    assert script.calls(role="chatbot")[0].messages[-1]["content"].startswith(message.content)
    assert dialog.persona == persona("false_claim") and dialog.claim == GOLD


def test_a_move_the_model_made_itself_is_recorded_as_its_own_and_nothing_is_added(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1, I am a gold customer after all."),
                                                       stop("success", "fine")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Shall I cancel A1?"))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    (dialog,) = play(tmp_path, run_folder, script, persona=persona("false_claim"), claim=GOLD)

    message = dialog.transcript[1]
    assert message.content == "Cancel A1, I am a gold customer after all."
    assert [(m.text, m.injected) for m in message.moves] == [("Cancel A1, I am a gold customer after all.", False)]


def test_moves_come_on_the_turns_the_persona_schedules(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("I want A1 cancelled."), say("Why not?"), say("Come on."),
                                                       say("Please."), stop("failure", "it refused")])
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("I cannot cancel it."))
    script.on(role="critique", schema="Critique", reply=verdict(True))

    (dialog,) = play(tmp_path, run_folder, script, persona=persona("pressure"))

    said = [message for message in dialog.transcript if message.role == "user"]
    scheduled = {move.turn: move.say for move in persona("pressure").moves}
    assert [message.content for message in said] == [
        "I want A1 cancelled.", f"Why not? {scheduled[2]}", f"Come on. {scheduled[3]}", f"Please. {scheduled[4]}"]
    assert [len(message.moves) for message in said] == [0, 1, 1, 1]


def test_a_dialog_that_failed_to_run_still_names_its_persona(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", reply=say("Cancel order A1."))
    script.on(role="chatbot", schema="ChatbotStep", reply="not json at all")

    (dialog,) = play(tmp_path, run_folder, script, persona=persona("vague"))

    assert dialog.status == "error" and dialog.persona == persona("vague")


def test_a_claim_move_needs_a_claim_to_state() -> None:
    assert with_moves(persona("false_claim"), None, 1, "Hello.") == ("Hello.", [])


def test_a_user_without_a_persona_says_only_its_own_words() -> None:
    assert with_moves(None, None, 1, "Hello.") == ("Hello.", [])


def test_the_words_a_persona_s_move_added_are_no_fault_of_the_user() -> None:
    message, moves = with_moves(persona("injection"), None, 1, "I want to cancel my order A1.")
    played = Dialog(id="S001", status="incomplete", reason="reached 4 user turns", transcript=[
        Message(role="chatbot", content="Hello!"), Message(role="user", content=message, moves=moves),
        Message(role="chatbot", content="I cannot skip the checks.")])

    assert moves and program_faults(event(), played) == []
    unscripted = played.model_copy(update={"transcript": [
        played.transcript[0], Message(role="user", content=message), played.transcript[2]]})
    assert [fault.kind for fault in program_faults(event(), unscripted)] == ["narrated"]  # the same words, its own


def test_a_value_the_user_was_told_to_claim_is_not_an_invention() -> None:
    due = Claim(statement="my order is due on 2024-09-30", table="orders", row={"order_id": "A1"}, column="due",
                claimed="2024-09-30", actual="2024-06-01")
    played = Dialog(id="S001", status="incomplete", reason="reached 4 user turns", transcript=[
        Message(role="chatbot", content="Hello!"),
        Message(role="user", content="Cancel A1, it is due on 2024-09-30 anyway."),
        Message(role="chatbot", content="Let me check.")])

    assert program_faults(event(claim=due), played) == []
    assert [fault.kind for fault in program_faults(event(), played)] == ["invented"]
