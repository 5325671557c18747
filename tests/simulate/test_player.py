"""The dialog player: the simulate stage's dialogs and the rollouts' branches are played by one player, on the
airline (τ-bench's data: a reservation to cancel) and on the card desk (tests/environment/wallet), whose user
acts on its own side of the world; each dialog says what it was played for in its `role`, never in its id."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from intellagent.artifacts import Dialog, Event, OutcomeGrade
from intellagent.chatbots import SamplingChatbot, select_chatbot
from intellagent.config import Config
from intellagent.context import RunContext
from intellagent.executors import LocalExecutor
from intellagent.graphs.dialog import play_dialog
from intellagent.llm import Request, ScriptedLLM, Usage
from intellagent.llm.cache import ResponseCache
from intellagent.llm.dialog_models import dialog_seed
from intellagent.llm.roles import RoleModels
from intellagent.modes import grader, user_role
from intellagent.progress import RunProgress
from intellagent.rollouts.positives import positives
from intellagent.run_folder import RunFolder
from intellagent.simulate.control import Way
from intellagent.simulate.player import Casting, DialogPlayer, Played
from tests.conftest import ROOT
from tests.rollouts.domain_rollouts import airline_config, airline_folder, airline_script
from tests.rollouts.shop_rollouts import (
    AGENT_LINE,
    DECLINE,
    candidate_seeds,
    catalog_of,
    records,
    roll_out,
    rollout_config,
    script_of,
    shop_folder,
    shop_script,
    tree,
)
from tests.simulate.scripted_dialogs import call, dialogs, reply, say, stop
from tests.simulate.test_dual_control import CARD, FIX, user_act, user_say, user_stop, wallet_config, wallet_folder

ROLLOUTS = {"enabled": True, "beam": 2, "branch": 2, "max_turns": 3}


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch) -> list[Dialog]:
    """Every dialog the player plays while the test runs, in the order each ended."""
    return spy(monkeypatch)


def spy(monkeypatch: pytest.MonkeyPatch) -> list[Dialog]:
    played: list[Dialog] = []
    play = DialogPlayer.play

    async def spying(self: DialogPlayer, *args: Any, **kwargs: Any) -> Any:
        result = await play(self, *args, **kwargs)
        played.append(result.dialog)
        return result

    monkeypatch.setattr(DialogPlayer, "play", spying)
    return played


# ── the airline ─────────────────────────────────────────────────────────────────────────────


@pytest.fixture(scope="module")
def airline_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, list[Dialog]]]:
    """Simulate and rollouts on the cancellation (the chatbot careful on its first candidate at each turn): the run
    folder, and the dialogs the player played."""
    tmp_path = tmp_path_factory.mktemp("airline-player")
    config = airline_config(tmp_path)
    folder = airline_folder(tmp_path, config)
    with pytest.MonkeyPatch.context() as monkeypatch:
        played = spy(monkeypatch)
        roll_out(config, folder, airline_script(config))  # type: ignore[arg-type]
        yield folder, played


def test_on_the_airline_the_chatbots_dialog_and_every_rollout_branch_are_played_by_the_player(airline_run) -> None:
    folder, played = airline_run

    branches = [f"A001~r{turn.id}" for turn in tree(folder, "A001").turns]
    assert sorted((dialog.id, dialog.role) for dialog in played) == sorted(
        [("A001", "chatbot"), *((branch, "rollout") for branch in branches)])
    assert [(dialog.id, dialog.role) for dialog in RunFolder(folder).dialogs.load()] == [("A001", "chatbot")]


def test_on_the_airline_the_branch_that_looks_up_asks_and_cancels_is_rewarded(airline_run) -> None:
    folder, _ = airline_run

    searched = tree(folder, "A001")
    (rewarded,) = positives(searched)
    assert rewarded.id == "0.1.1" and rewarded.grade is not None and rewarded.grade.state_match
    assert records(folder)[0].status == "ok"


def test_on_the_airline_each_branchs_world_is_stored_under_the_rollouts_and_the_dialogs_under_dialogs(
        airline_run) -> None:
    folder, played = airline_run

    stored = {role: {Path(d.database or "").parts[0] for d in played if d.role == role}
              for role in ("chatbot", "rollout")}
    assert stored == {"chatbot": {"dialogs"}, "rollout": {"rollouts"}}
    assert not list((folder / "rollouts" / "A001").glob("*.sqlite"))  # the complete worlds are gone


# ── the card desk: a user with tools of its own ──────────────────────────────────────────────

ASK_SWITCH = "Your card is unblocked. Please open your app's card settings and switch online payments on."
ALL_SET = "Thank you, you are all set."


def desk_chatbot(careful_seeds: set[int]) -> Any:
    """The chatbot's step: a careful candidate unblocks the card, then switches online payments on itself when it
    holds the user's tools (solo) or asks the user to (dual), and is done once it is; any other candidate
    declines."""

    def step(request: Request) -> dict[str, Any]:
        if request.body.get("seed") not in careful_seeds:
            return reply(DECLINE)
        if "Tool switch_online_payments returned" in request.last or request.last.startswith("Done"):
            return reply(ALL_SET)
        if "Tool unblock_card returned" in request.last:
            solo = "- switch_online_payments:" in request.text
            return call("switch_online_payments", **FIX) if solo else reply(ASK_SWITCH)
        return call("unblock_card", card_number=CARD)

    return step


def ines(request: Request) -> dict[str, Any]:
    """The user: tells her card; asked to, switches online payments on in her app (when she acts on her side) and
    says so; stops once the chatbot is done or declines."""
    acts = request.schema == "UserStep"  # dual: each step acts or replies; solo: she only talks
    said = AGENT_LINE.findall(request.last)
    last = said[-1] if said else ""
    if last in (ALL_SET, DECLINE):
        verdict = ("success", "it works again") if last == ALL_SET else ("failure", "the agent declined")
        return user_stop(*verdict) if acts else stop(*verdict)
    if last == ASK_SWITCH and acts:
        if "You used switch_online_payments" in request.last:
            return user_say("Done: online payments are on now.")
        return user_act("switch_online_payments", **FIX)
    first = f"My online payments fail; my card is {CARD}."
    return user_say(first) if acts else say(first)


def desk_rollouts(tmp_path: Path, control: str) -> tuple[Config, Path, ScriptedLLM]:
    """The card desk's event rolled out, played `control`: its config, run folder and script."""
    config = wallet_config(tmp_path, dual_control=control)
    config = config.model_copy(update={"workers": 1, "rollouts": config.rollouts.model_copy(update=ROLLOUTS)})
    folder = wallet_folder(tmp_path, config)
    RunFolder(folder).policies.save(catalog_of(RunFolder(folder).events.load()))
    return config, folder, script_of(desk_chatbot(candidate_seeds(config, number=1, event_id="W1")), ines)


def test_a_rollout_on_a_domain_whose_user_has_tools_rewards_the_branch_whose_user_fixed_its_side(
        tmp_path: Path, spied: list[Dialog]) -> None:
    config, folder, script = desk_rollouts(tmp_path, "dual")
    roll_out(config, folder, script)

    searched = tree(folder, "W1")
    assert records(folder)[0].status == "ok"
    rewarded = positives(searched)
    assert [turn.id for turn in rewarded] == ["0.1.1", "0.1.2"]  # the user fixed its side in 0.1: both graded so
    assert all(turn.grade and turn.grade.sides == {"company": [1, 1, 1], "user": [1, 1, 1]} for turn in rewarded)
    acted = [(c.name, c.arguments) for message in searched.path("0.1")[-1].messages
             if message.role == "user" for c in message.tool_calls]
    assert acted == [("switch_online_payments", FIX)]
    assert {(dialog.role, dialog.control) for dialog in spied} == {("chatbot", "dual"), ("rollout", "dual")}


def test_a_solo_runs_rollouts_hand_the_users_tools_to_the_chatbot_and_train_with_them(tmp_path: Path) -> None:
    config, folder, script = desk_rollouts(tmp_path, "solo")
    roll_out(config, folder, script)

    searched = tree(folder, "W1")
    (rewarded,) = positives(searched)
    made = [c.name for turn in searched.path(rewarded.id) for message in turn.messages
            if message.role == "chatbot" for c in message.tool_calls]
    assert made == ["unblock_card", "switch_online_payments"]
    assert not script.calls(role="user", schema="UserStep")
    (example,) = [json.loads(line) for line in (folder / "training" / "sft.jsonl").read_text().splitlines()]
    assert "switch_online_payments" in [tool["function"]["name"] for tool in example["tools"]]


def graded(dialog_id: str, role: str, reward: float) -> Dialog:
    """A recorded dialog of the card desk's event with its outcome's reward."""
    grade = OutcomeGrade(reward=reward, state_match=reward == 1.0, expected_calls=2, made_calls=2, matched_calls=2,
                         progress=reward)
    control = "dual" if role == "chatbot" else "solo"
    return Dialog(id=dialog_id, event="W1", role=role, control=control, status="pass", grade=grade)  # type: ignore[arg-type]


def test_the_rollouts_plain_reward_is_the_chatbots_own_dialogs_not_the_solo_one_beside_it(tmp_path: Path) -> None:
    config, folder, script = desk_rollouts(tmp_path, "both")
    RunFolder(folder).dialogs.replace([graded("W1", "chatbot", 0.0), graded("W1-solo", "solo", 1.0)])

    roll_out(config, folder, script, stages=("rollouts",))

    assert records(folder)[0].plain_reward == 0.0


# ── going on from a turn ─────────────────────────────────────────────────────────────────────


async def with_player(folder: Path, config: Config, script: ScriptedLLM, body: Any) -> Any:
    """`body(player, event, chatbot)` with the shop's player open on the run in `folder`, its chatbot sampled."""
    usage = Usage()
    cache = ResponseCache(folder / "llm_cache.sqlite")
    try:
        with RunProgress(usage, enabled=False) as progress:
            ctx = RunContext(config=config, folder=RunFolder(folder), usage=usage, progress=progress,
                             llms=RoleModels(config, cache=cache, usage=usage, script=script),
                             executor=LocalExecutor())
            chatbot = select_chatbot(ctx)
            assert isinstance(chatbot, SamplingChatbot)
            async with DialogPlayer.open(ctx, [chatbot], play=play_dialog, user_role=user_role,
                                         grader=grader) as player:
                return await body(player, ctx.folder.events.require()[0], chatbot.sampling(0.7))
    finally:
        cache.close()


def branch(turn_id: str) -> Casting:
    """A branch of the shop's event, as the rollouts name it (its seed makes candidate 1 careful, 2 decline)."""
    return Casting.for_branch("S001", turn_id, Way(None))


def test_a_dialog_goes_on_from_a_turn_kept_and_its_chatbot_never_hears_the_turn_rolled_back(tmp_path: Path) -> None:
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)
    script = shop_script(config)

    async def body(player: DialogPlayer, event: Event, chatbot: SamplingChatbot) -> tuple[Played, Played, Played]:
        root = await player.play(event, branch("0"), chatbot, one_turn=True)
        refused = await player.play(event, branch("0.2"), root, one_turn=True)  # declines: rolled back
        kept = await player.play(event, branch("0.1"), root)  # played from the root to its end
        return root, refused, kept

    root, refused, kept = asyncio.run(with_player(folder, config, script, body))

    assert [m.content for m in refused.dialog.transcript if m.role == "chatbot"][-1] == DECLINE
    assert kept.dialog.transcript[:len(root.dialog.transcript)] == root.dialog.transcript
    assert kept.dialog.status == "pass" and kept.dialog.grade is not None and kept.dialog.grade.passed
    heard = [request.text for request in script.calls(role="chatbot")
             if request.body.get("seed") == dialog_seed(config.seed, "S001~r0.1")]
    assert heard and not any(DECLINE in text for text in heard)
    assert root.files is not None and root.files.played.exists()  # the turn kept stays for the next branch


# ── the role, on the record ──────────────────────────────────────────────────────────────────


def test_a_resumed_run_reads_the_role_of_dialogs_recorded_before_it_and_plays_none_again(tmp_path: Path) -> None:
    config, folder, script = desk_rollouts(tmp_path, "both")
    roll_out(config, folder, script, stages=("simulate",))
    played = dialogs(folder)
    path = folder / "dialogs.jsonl"
    older = [{key: value for key, value in json.loads(line).items() if key != "role"}
             for line in path.read_text().splitlines()]
    path.write_text("".join(json.dumps(record) + "\n" for record in older))

    again = ScriptedLLM()
    roll_out(config, folder, again, stages=("simulate",))

    assert not again.requests
    assert dialogs(folder) == played
    assert {dialog.id: dialog.role for dialog in played} == {"W1": "chatbot", "W1-solo": "solo"}


@pytest.mark.parametrize(("fields", "role"), [
    ({"id": "S001"}, "chatbot"),
    ({"id": "S001-t2", "trial": 2}, "chatbot"),
    ({"id": "S001", "control": "solo"}, "chatbot"),  # solo is the run's own way: its figures
    ({"id": "S001-solo", "control": "solo"}, "solo"),
    ({"id": "S001~omit-P01", "mutant": "omit-P01"}, "mutant"),
    ({"id": "P0004", "production": "line 4"}, "production"),
])
def test_a_record_written_before_the_role_gets_it_from_what_told_it_then(fields: dict[str, Any], role: str) -> None:
    older = Dialog.model_validate_json(json.dumps({**fields, "status": "pass"}))

    assert older.role == role


def test_a_records_role_stands_whatever_its_id_says() -> None:
    assert Dialog(id="S001-solo", role="chatbot", control="solo", status="pass").role == "chatbot"


def test_no_module_but_the_player_opens_a_chatbot_session_or_a_dialog_world() -> None:
    opened = {path.relative_to(ROOT).as_posix() for folder in ("intellagent", "graphs")
              for path in (ROOT / folder).rglob("*.py")
              if "ChatbotSession(" in path.read_text() or "DialogWorld(" in path.read_text()}

    assert opened == {"intellagent/simulate/player.py"}
