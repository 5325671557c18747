"""τ-bench conformance: the data round-trips, every task's gold actions reach τ-bench's hash, rewards match."""

import json
from pathlib import Path
from typing import Any

import pytest
from intellagent.db_schemas.airline.tau import TauDatabase, export_tau

from intellagent.environment import Environment
from intellagent.tau.task_grading import grade, tau_hash
from intellagent.tau.tasks import TauTask

INITIAL_HASH = "4587e6b48ad2b2c4f3e1fecb40aabec7bb2286513273b8f8cec3f5865222f290"
# τ-bench's hash of the database after each task's gold actions; tasks not listed only read.
GOLD_HASHES = {
    0: "a825bc534ee4abad2f0f36d5d162989dcbae16dd509bd675feb7e9ffc86a1001",
    1: "a9810f488716b2601f8bb10a5f4c55ede595a33ccef1d826c45957fdcfb73653",
    2: "8c30fdf45a25207640620325d24fbc984a94c0203cc7671a19e2127d47775fac",
    3: "b7d5970b354019f52ef64393fd4e345532045173f6d60e2efd1a39c2642362b2",
    4: "af79a3ba06bcc4c649f1d6b1dd6f6c333cb04a3a461f79ef8eb98ba7a6708313",
    5: "af79a3ba06bcc4c649f1d6b1dd6f6c333cb04a3a461f79ef8eb98ba7a6708313",
    6: "8a4a0713cf1e4c10fb11c801f60e733c6f39388e045c663418d874f9680bfe24",
    7: "8a4a0713cf1e4c10fb11c801f60e733c6f39388e045c663418d874f9680bfe24",
    8: "f9bcf16efd53be406b4bb0f0dcfc77a5ba8032c84b9557ab4f3099d680f56a8d",
    9: "1caf320e43546a8edfa22bf8c5e56b8b7d32532a0419919e75b01931d8d13db0",
    10: "ee62d975ca00d58d3eb7c78c21f42a9b2ec978325909f7c79c0cea014fd5071c",
    11: "0b006dde0a77c7918b80c791e9e40f37519f0d18581c04668512b407002cf5f2",
    14: "27d892d661dc7582024ec52926fed87fdbd74a9682278cafb8c12befb44bc37f",
    16: "196c89b4d8050bd39fbcf7fff0e7c031d61fe90ad992c3e61256ade858013d6c",
    19: "ccdfcc6443564e2cc55dcb7972e559d7913e1d04a4129ed4b43b1b2664325a36",
    20: "dd5a6f044e9551d1cac4d38fdc581f7a8db62785419b4f83fdfb5f7da4d954ea",
    22: "e65fa27507133dd38a963089220c4fe572e2d334d32e152717664595a043640d",
    23: "ab332f06c7b21fd0a3bbae13bdab8223108b5045b59b6dc877e1dedf1a3cef17",
    25: "90ffcbcbdc75c5ffbb0614436afa86fb50ad55e9cb13eb198888c6c8187384b1",
    26: "989dedfa6228fcddc7cc44bf3e67325463035a530d3446d8dc0c65284bec6b6f",
    27: "06e7fd6c2455e65f63abf6d8b36cef334357784d587c50ea6041fe850aae8877",
    28: "f695793a6fe5ea0629ba6e6ec5b25ada288551fb3d2b96bd9bacfa3de0f66263",
    30: "e25182e61a783be90e4932da0f9b4cce0a4ba71d43f16c6318d7bfa65917cefc",
    31: "f202a1c73cb1bcde0ff71f0998610ffafbfa16a250b170b4450417fad0a924c0",
    32: "81a0a405248e8ae7e8b2c27db6308e765b75621730bce53a1b1f793396ca1ff6",
    33: "05d8e8de682bc4d89ef00c5286ae723252c1df7246f6bc51cc9441f0ab9be252",
    34: "3d5434ae0f79868b36a81163c059a399e4081480c815ca160a5da9779c27353b",
    43: "00da04f85438aebd098e217ffb9b5a6b9524e775bab6783f5c20c0ff1762e071",
    45: "a453bd4c58a80143bd31230383dcd4f5daf93a50a250c2fcc917fc5766471b34",
    46: "a453bd4c58a80143bd31230383dcd4f5daf93a50a250c2fcc917fc5766471b34",
}


def gold_calls(task: TauTask) -> list[tuple[str, dict[str, Any]]]:
    return [(action.name, action.kwargs) for action in task.actions]


def test_the_data_hashes_as_in_tau_bench(tau_data: TauDatabase) -> None:
    assert tau_hash(tau_data) == INITIAL_HASH


def test_loaded_data_exports_back_unchanged(airline: Environment, tau_db: Path, tau_data: TauDatabase) -> None:
    with airline.session(tau_db) as session:
        exported = export_tau(session)
    assert tau_hash(exported) == INITIAL_HASH
    for part in ("flights", "reservations", "users"):
        assert exported[part].keys() == tau_data[part].keys()
        # Text, not ==, so that key order and int-versus-float count too.
        changed = [
            key for key, record in tau_data[part].items() if json.dumps(record) != json.dumps(exported[part][key])
        ]
        assert changed == [], f"{part}: {changed[:3]}"


def test_there_are_fifty_tasks(tau_tasks: list[TauTask]) -> None:
    assert len(tau_tasks) == 50


@pytest.mark.parametrize("index", range(50))
def test_gold_actions_reach_the_reference_hash_and_earn_the_reward(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask], index: int
) -> None:
    task = tau_tasks[index]
    result = grade(airline, task, calls=gold_calls(task), replies=[" ".join(task.outputs)], initial=tau_template)
    assert result.agent_hash == result.gold_hash == GOLD_HASHES.get(index, INITIAL_HASH)
    assert result.reward == 1.0 and result.missed == result.unexpected == result.diff == []


def test_every_gold_action_succeeds(airline: Environment, tau_db: Path, tau_tasks: list[TauTask]) -> None:
    with airline.session(tau_db) as session:
        for index in (9, 34):  # the three bookings, and the update then cancel of XEHM4B
            for name, arguments in gold_calls(tau_tasks[index]):
                assert not airline.call_tool(session, name, arguments).startswith("Error"), (index, name)


def test_reward_is_one_when_state_and_outputs_match(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[8]
    assert task.outputs == ["327", "1000", "1786"]
    replies = ["Your totals are $327 and $1,000.", "The last one COMES TO 1786 dollars."]
    result = grade(airline, task, calls=gold_calls(task), replies=replies, initial=tau_template)
    assert result.reward == 1.0
    assert result.hash_match and result.agent_hash == result.gold_hash == GOLD_HASHES[8]
    assert result.outputs == {"327": True, "1000": True, "1786": True}


def test_reward_is_zero_when_the_state_differs(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    looked = [("get_user_details", {"user_id": "mia_li_3668"})]
    result = grade(airline, tau_tasks[0], calls=looked, replies=[], initial=tau_template)
    assert result.reward == 0.0
    assert not result.hash_match
    assert (result.agent_hash, result.gold_hash) == (INITIAL_HASH, GOLD_HASHES[0])


def test_reward_is_zero_when_an_output_is_missing(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[2]
    replies = ["Done; the total is 23,552 dollars."]
    result = grade(airline, task, calls=gold_calls(task), replies=replies, initial=tau_template)
    assert result.hash_match
    assert result.outputs == {"23553": False}
    assert result.reward == 0.0


def test_outputs_are_searched_in_replies_only(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[44]
    assert task.outputs == ["4"]
    calls = [*gold_calls(task), ("calculate", {"expression": "2 + 2"}), ("transfer_to_human_agents", {"summary": "x"})]
    assert grade(airline, task, calls=calls, replies=["Let me check."], initial=tau_template).reward == 0.0
    assert grade(airline, task, calls=calls, replies=["You have 4 of them."], initial=tau_template).reward == 1.0


def test_a_skipped_write_is_named_with_the_records_it_would_have_changed(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[34]  # reads, the update of XEHM4B, then two cancellations
    calls = gold_calls(task)
    assert calls[-1] == ("cancel_reservation", {"reservation_id": "59XX6W"})
    result = grade(airline, task, calls=calls[:-1], replies=[], initial=tau_template)
    assert result.reward == 0.0 and not result.passed
    assert result.missed == ['cancel_reservation(reservation_id="59XX6W")']
    assert result.unexpected == []
    assert result.diff[0] == "reservations 59XX6W: payment_history, status"
    assert "missed cancel_reservation" in result.summary()


def test_a_write_with_other_arguments_is_both_missed_and_unexpected(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[34]
    calls = gold_calls(task)
    update = calls[4]
    calls[4] = ("update_reservation_flights", {**update[1], "cabin": "business"})
    result = grade(airline, task, calls=calls, replies=[], initial=tau_template)
    assert result.reward == 0.0
    assert result.missed == [task.actions[4].text()]
    assert result.unexpected[0].startswith("update_reservation_flights(") and '"business"' in result.unexpected[0]
    assert any(line.startswith("reservations XEHM4B: ") for line in result.diff)


def test_a_passed_grade_names_nothing_missed(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[34]
    result = grade(airline, task, calls=gold_calls(task), replies=[], initial=tau_template)
    assert result.passed and result.missed == result.unexpected == result.diff == []
    assert result.summary().startswith("τ-bench reward 1")


def test_a_failed_grade_names_the_gold_writes_it_missed_apart_from_the_look_ups(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask]
) -> None:
    task = tau_tasks[34]  # reads, the update of XEHM4B, then two cancellations
    reads = [action.text() for action in task.replayed if not airline.tool(action.name).writes]
    writes = [action.text() for action in task.replayed if airline.tool(action.name).writes]
    assert reads and writes

    result = grade(airline, task, calls=[], replies=[], initial=tau_template)

    assert result.missed == writes and result.missed_reads == reads
    assert result.summary().index("missed " + writes[0]) < result.summary().index("did not look up " + reads[0])


def test_a_write_that_returned_an_error_is_no_unexpected_write(
    airline: Environment, tau_template: Path, tau_tasks: list[TauTask], tmp_path: Path
) -> None:
    task = tau_tasks[34]
    refused = ("cancel_reservation", {"reservation_id": "NO5UCH"})
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(tau_template.read_bytes())
    with airline.session(copy) as session:
        assert airline.call_tool(session, *refused).startswith("Error")
    calls = [refused, *gold_calls(task)]

    result = grade(airline, task, calls=calls, replies=[], initial=tau_template, failed=[refused])

    assert result.passed and result.unexpected == []
