"""simulate.trials plays every event several times, each trial with a seed of its own for the user."""

from __future__ import annotations

import json

from scripted_dialogs import dialogs, event, reply, say, shop_config, simulate, stop, verdict

from intellagent.llm import ModelSpec
from intellagent.llm.dialog_models import dialog_seed
from intellagent.simulate.trials import TRIAL_TEMPERATURE


def test_each_event_gets_k_dialogs_with_their_own_ids_databases_and_user_seeds(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok")] * 3)
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="chatbot", reply=reply("Order A1 is cancelled."))
    config = shop_config(tmp_path, simulate={"trials": 3}, workers=1)
    folder = run_folder(config, [event("S001")])

    simulate(config, folder, script)

    played = dialogs(folder)
    assert [(d.id, d.event, d.trial, d.database) for d in played] == [
        ("S001", "S001", 1, "dialogs/S001.delta.json"),
        ("S001-t2", "S001", 2, "dialogs/S001-t2.delta.json"),
        ("S001-t3", "S001", 3, "dialogs/S001-t3.delta.json"),
    ]
    assert all((folder / d.database).is_file() for d in played)
    assert not list(folder.glob("dialogs/*.sqlite"))  # the complete databases are gone once the changes are stored
    first_turns = [r.body for r in script.calls(role="user") if "Customer (you)" not in r.last]
    assert sorted(body["seed"] for body in first_turns) == sorted(dialog_seed(42, d.id) for d in played)
    assert len({body["seed"] for body in first_turns}) == 3
    assert {body["temperature"] for body in first_turns} == {TRIAL_TEMPERATURE}

    sent = len(script.requests)
    again = simulate(config, folder, script)
    assert again.exit_code == 0 and len(script.requests) == sent  # every dialog is recorded: nothing is replayed
    assert len(dialogs(folder)) == 3


def test_one_trial_keeps_the_configured_user_and_the_events_id(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="chatbot", reply=reply("Done."))
    config = shop_config(tmp_path)
    folder = run_folder(config, [event("S001")])
    simulate(config, folder, script)
    (played,) = dialogs(folder)
    assert (played.id, played.trial) == ("S001", 1)
    body = script.calls(role="user")[0].body
    assert body["temperature"] == 0 and body["seed"] == 42
    assert json.loads(played.model_dump_json())["event"] == "S001"


def test_dialogs_that_reach_one_prompt_get_their_own_replies_when_the_user_samples(tmp_path, run_folder, script):
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok"),
                                                       say("Cancel A1 too."), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    script.on(role="chatbot", reply=reply("Order A1 is cancelled."))
    config = shop_config(tmp_path, workers=1)
    sampling_user = ModelSpec(provider="scripted", temperature=0.5)
    config = config.model_copy(update={"llm": config.llm.model_copy(update={"user": sampling_user})})
    folder = run_folder(config, [event("S001"), event("S002")])  # one scenario twice: one first prompt

    simulate(config, folder, script)

    played = dialogs(folder)
    assert [d.status for d in played] == ["pass", "pass"], [d.reason for d in played]
    first = [d.transcript[1].content for d in played]
    assert first == ["Cancel A1.", "Cancel A1 too."]  # not the first dialog's reply, from the cache
    assert sorted({r.body["seed"] for r in script.calls(role="user")}) == sorted(
        dialog_seed(42, d.id) for d in played)
