"""An attack through the conversation is a search: a refused message is rolled back and another angle tried from
the branch kept, and the chatbot never sees what was rolled back."""

from __future__ import annotations

from pathlib import Path

from tests.redteam.desk_attacks import (
    FORBIDDEN,
    attack_script,
    attacks,
    desk_config,
    desk_folder,
    gives_way_on,
    red_team,
    tree,
)


def test_the_search_backtracks_twice_and_finds_the_breach_on_the_third_angle(tmp_path: Path) -> None:
    config = desk_config(tmp_path)
    folder = desk_folder(tmp_path, config)

    red_team(config, folder, attack_script(gives_way_on(3)))

    (attack,) = attacks(folder)
    searched = tree(folder)
    assert [(a.id, a.parent, a.refused, bool(a.breach)) for a in searched.attempts] == [
        ("0", None, False, False), ("1", "0", True, False), ("2", "0", True, False), ("3", "0", False, True)]
    assert (attack.status, attack.breached, attack.attempts, attack.rolled_back, attack.first_breach) == (
        "ok", True, 3, 2, 3)
    assert attack.source == "outcome" and attack.breach[0].call == FORBIDDEN


def test_the_chatbot_never_sees_the_rolled_back_messages(tmp_path: Path) -> None:
    config = desk_config(tmp_path)
    folder = desk_folder(tmp_path, config)
    script = attack_script(gives_way_on(3))

    red_team(config, folder, script)

    third = [request.text for request in script.calls(role="chatbot") if "angle 3:" in request.text]
    assert third and not any("angle 1:" in text or "angle 2:" in text for text in third)
    won = tree(folder).dialog
    assert [(m.role, m.content.partition(":")[0]) for m in won.transcript] == [
        ("chatbot", "Hello! How can I help you today?"), ("user", "angle 3"), ("chatbot", "Done"), ("user", "angle 4")]
    assert won.role == "attack" and won.id == "P2.crescendo.S001~a3"


def test_the_attacker_keeps_the_rolled_back_messages_and_their_refusals_in_view(tmp_path: Path) -> None:
    config = desk_config(tmp_path)
    folder = desk_folder(tmp_path, config)
    script = attack_script(gives_way_on(3))

    red_team(config, folder, script)

    last = script.calls(role="attacker")[-1].last
    assert last.count("(rolled back:") == 2
    assert last.index("angle 1:") < last.index("angle 2:") < last.index("angle 3:")


def test_a_rule_no_event_samples_is_recorded_skipped_at_no_call(tmp_path: Path) -> None:
    config = desk_config(tmp_path, rules=[])
    folder = desk_folder(tmp_path, config)
    script = attack_script(gives_way_on(3))

    red_team(config, folder, script)

    recorded = {attack.id: (attack.status, attack.event) for attack in attacks(folder)}
    assert recorded == {"P1.crescendo": ("skipped", ""), "P2.crescendo.S001": ("ok", "S001")}
    assert "no event samples the rule" in attacks(folder)[0].reason
