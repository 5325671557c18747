"""Dual control: the simulated user acts on its own side of the world as the chatbot guides it, its calls are
the user's in the transcript, the chatbot never gets its tools, and the grade covers both sides; solo mode hands
the user's tools to the chatbot. Played on the card desk (tests/environment/wallet), whose user side is a banking
app keyed by a number of its own, with a JSON column."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path
from typing import Any

import pytest
from langchain_core.messages import AIMessage
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from pydantic import BaseModel
from scripted_dialogs import call, dialogs, reply, say, simulate, stands, stop, verdict

from examples.chatbots.graph_desk import build as build_desk_graph
from intellagent.artifacts import Event, ExpectedCall, ExpectedOutcome
from intellagent.config import Config, load_config
from intellagent.environment import load_environment, worlds
from intellagent.llm import ModelSpec, ScriptedLLM
from intellagent.runner import execute
from intellagent.simulate.turns import BriefUserTurn, UserTurn
from intellagent.simulate.users import ScenarioUser, UserToolStep
from tests.environment.conftest import CARD, INSTALL, WALLET, blocked_card_world

EXPECTED = "events/W1.expected.delta.json"
FIX = {"install_id": INSTALL, "on": True}


def wallet_config(tmp_path: Path, **simulate_settings: Any) -> Config:
    """The card desk with every role scripted."""
    return load_config({
        "name": "wallet",
        "environment": {"policy": str(WALLET / "wallet.md"), "schema": str(WALLET / "schema.py"),
                        "tools": str(WALLET / "tools.py"), "user_tools": str(WALLET / "user_tools.py")},
        "llm": "scripted",
        "chatbot": {"llm": "scripted"},
        "simulate": {"max_turns": 4, "max_critiques": 1, "max_tool_steps": 3, **simulate_settings},
    }, base_dir=tmp_path)


def wallet_folder(tmp_path: Path, config: Config) -> Path:
    """A run folder with one event: Ines's card is blocked and her app has online payments off; a rule-keeping
    chatbot unblocks the card and gets her to switch online payments on."""
    folder = tmp_path / "run"
    asyncio.run(execute(config, output=folder, stages=(), progress=False))
    environment = load_environment(config.environment)
    start = blocked_card_world(environment, folder / "events/W1.sqlite")
    fixed = tmp_path / "fixed.sqlite"
    shutil.copyfile(start, fixed)
    with environment.session(fixed) as session:
        environment.call_tool(session, "unblock_card", {"card_number": CARD})
        environment.call_tool(session, "switch_online_payments", FIX, by="user")
    worlds.save_delta(folder / EXPECTED, base=start, found=worlds.changes(fixed, start))
    expected = ExpectedOutcome(calls=[ExpectedCall(tool="unblock_card", arguments={"card_number": CARD}, writes=True),
                                      ExpectedCall(tool="switch_online_payments", arguments=FIX, writes=True)],
                               world=EXPECTED)
    event = Event(id="W1", policies=["P1", "P2"], challenge=4, database="events/W1.sqlite", expected=expected,
                  scenario="You are Ines Okafor; your card's online payments fail.",
                  expected_behaviour="The agent unblocks the card and gets you to switch online payments on.",
                  user_rows={"cards": [{"card_number": CARD}], "apps": [{"install_id": INSTALL}]})
    (folder / "events.jsonl").write_text(event.model_dump_json() + "\n")
    return folder


def user_act(tool: str, **arguments: Any) -> dict[str, Any]:
    """A user step that calls one of its own tools."""
    return {"action": tool, "arguments": arguments}


def user_say(message: str) -> dict[str, Any]:
    """A user step that talks."""
    return {"action": "reply", **say(message)}


def user_stop(verdict: str, reason: str) -> dict[str, Any]:
    """A user step that stops with a verdict."""
    return {"action": "reply", **stop(verdict, reason)}


GUIDE = [call("get_card", card_number=CARD), call("unblock_card", card_number=CARD),
         reply("Your card is unblocked. Please open your app's card settings and switch online payments on."),
         reply("Thank you, you are all set.")]


def play(tmp_path: Path, script: ScriptedLLM, *, config: Config | None = None, **options: Any) -> list:
    config = config or wallet_config(tmp_path)
    folder = wallet_folder(tmp_path, config)
    simulate(config, folder, script, **options)
    return dialogs(folder)


@pytest.fixture
def guided(script: ScriptedLLM) -> ScriptedLLM:
    """A chatbot that unblocks the card and asks the user to switch online payments on; a critique that agrees."""
    script.on(role="chatbot", schema="ChatbotStep", replies=GUIDE)
    script.on(role="critique", schema="Critique", reply=verdict(True))
    return script


def test_a_user_that_follows_the_guidance_fixes_its_side_and_the_dialog_passes_its_outcome(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[
        user_say(f"My online payments fail; my card is {CARD}."),
        user_act("open_card_settings", install_id=INSTALL),
        user_act("switch_online_payments", **FIX),
        user_say("Done: online payments are on now."),
        user_stop("success", "it works again"),
    ])
    (dialog,) = play(tmp_path, guided)

    assert dialog.control == "dual"
    assert dialog.grade.passed and dialog.grade.state_match
    assert dialog.grade.sides == {"company": [1, 2, 1], "user": [1, 2, 1]}


def test_a_user_that_does_not_act_leaves_its_side_broken_and_the_outcome_fails(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[user_say(f"My online payments fail; my card is {CARD}."),
                                                       user_say("I would rather not touch my app."),
                                                       user_stop("success", "the agent was helpful")])
    (dialog,) = play(tmp_path, guided)

    assert dialog.status == "pass"  # the user's verdict; the outcome says otherwise
    assert not dialog.grade.passed
    assert dialog.grade.missed == [f"switch_online_payments(install_id={INSTALL}, on=true)"]
    assert dialog.grade.diff == [f"apps {INSTALL}: written by the expected calls, not by the chatbot"]


def test_the_users_calls_are_recorded_on_its_message_with_their_results(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[
        user_say(f"My online payments fail; my card is {CARD}."),
        user_act("switch_online_payments", **FIX),
        user_say("Done."),
        user_stop("success", "fixed"),
    ])
    (dialog,) = play(tmp_path, guided)

    acted = [message for message in dialog.transcript if message.role == "user" and message.tool_calls]
    assert [(m.content, [(c.id, c.name, c.arguments, c.result) for c in m.tool_calls]) for m in acted] == [
        ("Done.", [("call_3", "switch_online_payments", FIX, "online payments: on")])]
    chatbot_calls = [c.name for m in dialog.transcript if m.role == "chatbot" for c in m.tool_calls]
    assert chatbot_calls == ["get_card", "unblock_card"]


def test_the_user_reads_what_its_tool_showed_and_the_chatbot_only_what_the_user_said(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[
        user_say(f"My online payments fail; my card is {CARD}."),
        user_act("open_card_settings", install_id=INSTALL),
        user_say("The app says online payments are off."),
        user_stop("failure", "still broken"),
    ])
    play(tmp_path, guided)

    after_look = guided.calls(role="user", schema="UserStep")[2]
    assert f"(You used open_card_settings(install_id={INSTALL}): contactless: on, online_payments: off)" in \
        after_look.last
    last_chatbot = guided.calls(role="chatbot")[-1]
    assert "online_payments: off" not in last_chatbot.text
    assert "The app says online payments are off." in last_chatbot.text


def test_the_user_is_told_its_tools_and_the_chatbot_never_gets_them(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[user_say(f"My payments with card {CARD} fail."), user_say("Ok."),
                                                       user_stop("failure", "no")])
    play(tmp_path, guided)

    assert "switch_online_payments" in guided.calls(role="user")[0].text
    chatbot = guided.calls(role="chatbot")
    assert chatbot and not any("switch_online_payments" in request.text or "open_card_settings" in str(request.body)
                               for request in chatbot)


def test_a_user_tool_called_with_wrong_arguments_answers_an_error_and_the_dialog_goes_on(tmp_path, guided):
    guided.on(role="user", schema="UserStep", replies=[
        user_say(f"My card is {CARD}."),
        user_act("switch_online_payments", install_id=999, on=True),
        user_say("It says there is no such app."),
        user_stop("failure", "could not fix"),
    ])
    (dialog,) = play(tmp_path, guided)

    (acted,) = [call for m in dialog.transcript if m.role == "user" for call in m.tool_calls]
    assert acted.failed and acted.result == "Error: no app installation 999"
    assert dialog.status == "fail"


def test_the_users_calls_per_turn_are_bounded_by_max_tool_steps(tmp_path, guided):
    looks = [user_act("open_card_settings", install_id=INSTALL)] * 3
    guided.on(role="user", schema="UserStep", replies=[user_say(f"My card is {CARD}."), *looks,
                                                       user_stop("failure", "no")])
    guided.on(role="user", schema="UserTurn", reply=say("I looked three times."))
    (dialog,) = play(tmp_path, guided)  # max_tool_steps: 3

    (looked,) = [m for m in dialog.transcript if m.role == "user" and m.tool_calls]
    assert len(looked.tool_calls) == 3 and looked.content == "I looked three times."


def test_solo_hands_the_users_tools_to_the_chatbot_and_the_user_only_talks(tmp_path, script):
    script.on(role="chatbot", schema="ChatbotStep", replies=[
        call("unblock_card", card_number=CARD), call("switch_online_payments", **FIX), reply("Both fixed.")])
    script.on(role="user", schema="UserTurn", replies=[say(f"My card {CARD} fails online."),
                                                       stop("success", "fixed")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    (dialog,) = play(tmp_path, script, config=wallet_config(tmp_path, dual_control="solo"))

    assert dialog.id == "W1" and dialog.control == "solo"
    assert dialog.grade.passed and dialog.grade.sides == {"company": [1, 1, 1], "user": [1, 1, 1]}
    assert not script.calls(role="user", schema="UserStep")
    assert "switch_online_payments" in script.calls(role="chatbot")[0].text


def test_both_plays_every_dialog_dual_and_solo_beside_it(tmp_path, script):
    script.on(role="chatbot", schema="ChatbotStep", when=lambda r: "switch_online_payments" in r.text,
              replies=[call("unblock_card", card_number=CARD), call("switch_online_payments", **FIX), reply("Fixed.")])
    script.on(role="chatbot", schema="ChatbotStep", replies=[call("unblock_card", card_number=CARD),
                                                             reply("Please switch online payments on in your app.")])
    script.on(role="user", schema="UserStep", replies=[user_say(f"My card {CARD} fails online."),
                                                       user_say("I cannot find that."), user_stop("failure", "no")])
    script.on(role="user", schema="UserTurn", replies=[say(f"My card {CARD} fails online."), stop("success", "fixed")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    played = play(tmp_path, script, config=wallet_config(tmp_path, dual_control="both"))

    by_id = {dialog.id: dialog for dialog in played}
    assert sorted(by_id) == ["W1", "W1-solo"]
    assert (by_id["W1"].control, by_id["W1-solo"].control) == ("dual", "solo")
    assert (by_id["W1"].role, by_id["W1-solo"].role) == ("chatbot", "solo")
    assert not by_id["W1"].grade.passed and by_id["W1-solo"].grade.passed


def test_a_domain_without_user_tools_plays_its_dialogs_without_a_control(tmp_path, script):
    script.on(role="chatbot", schema="ChatbotStep", reply=reply("Let me see."))
    script.on(role="user", schema="UserTurn", replies=[say(f"My card {CARD} fails."), stop("failure", "no")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = wallet_config(tmp_path, dual_control="both")
    config = config.model_copy(update={"environment": config.environment.model_copy(update={"user_tools": None})})
    (dialog,) = play(tmp_path, script, config=config)
    assert dialog.control is None


DESK = ["get_card", "unblock_card"]
EVERY_TOOL = [*DESK, "open_card_settings", "switch_online_payments"]


def listed_over_mcp(url: str) -> list[str]:
    """The names of the tools the run's MCP server lists at a dialog's address."""
    async def listed() -> list[str]:
        async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
            await session.initialize()
            return [tool.name for tool in (await session.list_tools()).tools]

    return asyncio.run(listed())


def completion(text: str) -> dict[str, Any]:
    return {"id": "x", "object": "chat.completion", "created": 0, "model": "bot",
            "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}]}


def tools_seen(kind: str, tmp_path: Path, script: ScriptedLLM, server: Any, control: str) -> list[str]:
    """The tools a chatbot of `kind` was given in a dialog played `control` (dual or solo)."""
    seen: list[str] = []
    options: dict[str, Any] = {}
    chatbot: dict[str, Any] = {}
    if kind == "llm_agent":
        script.on(role="chatbot", schema="ChatbotStep", reply=reply("Noted."))
    elif kind == "python":
        def bot(messages: list, session: Any) -> str:
            seen[:] = [tool.name for tool in session.tools]
            return "Noted."
        options["chatbot"] = bot
    elif kind == "langgraph":
        def build(tools: list) -> Any:
            seen[:] = [tool.name for tool in tools]
            return build_desk_graph(tools)
        options["chatbot"] = build
    elif kind == "http":
        def answer_http(path: str, body: dict, headers: Any) -> tuple[int, Any]:
            seen[:] = listed_over_mcp(body["mcp_url"])
            return 200, {"reply": "Noted."}
        chatbot = {"type": "http", "url": server(answer_http) + "/chat"}
    else:
        def answer_openai(path: str, body: dict, headers: Any) -> tuple[int, Any]:
            seen[:] = listed_over_mcp(headers["X-IntellAgent-MCP"])
            return 200, completion("Noted.")
        chatbot = {"type": "openai", "model": "bot", "base_url": server(answer_openai) + "/v1"}
    script.on(role="user", schema="UserStep", replies=[user_say(f"My card {CARD} fails."),
                                                       *[user_stop("failure", "no")] * 3])
    script.on(role="user", schema="UserTurn", replies=[say(f"My card {CARD} fails."), *stands("failure", "no")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = wallet_config(tmp_path, dual_control=control)
    config = config.model_copy(update={"chatbot": config.chatbot.model_copy(update=chatbot)}) if chatbot else config
    (dialog,) = play(tmp_path, script, config=config, **options)
    assert dialog.status == "fail", dialog.reason
    if kind == "llm_agent":
        prompt = script.calls(role="chatbot")[0]
        seen[:] = [name for name in EVERY_TOOL if f"- {name}:" in prompt.text]
    return seen


KINDS = ["llm_agent", "python", "langgraph", "http", "openai"]


@pytest.mark.parametrize("kind", KINDS)
def test_no_kind_of_chatbot_is_given_the_users_tools(kind, tmp_path, script, server):
    assert tools_seen(kind, tmp_path, script, server, "dual") == DESK


@pytest.mark.parametrize("kind", KINDS)
def test_solo_gives_every_kind_of_chatbot_the_users_tools_as_its_own(kind, tmp_path, script, server):
    assert tools_seen(kind, tmp_path, script, server, "solo") == EVERY_TOOL


class NativeModel:
    """A user model with native tool calls that answers each request with the next of `answers` (an AIMessage),
    and any structured request with `turn`; it records what it was asked."""

    spec = ModelSpec(provider="openai", model="native")

    def __init__(self, *answers: AIMessage, turn: BaseModel | None = None) -> None:
        self.answers = list(answers)
        self.turn = turn
        self.requests: list[dict[str, Any]] = []

    async def complete(self, messages: list, *, step: str, **options: Any) -> AIMessage:
        self.requests.append(options)
        return self.answers.pop(0)

    async def answer(self, messages: list, schema: type, *, step: str, warmer: bool = False) -> Any:
        self.requests.append({"schema": schema.__name__})
        return self.turn


def native_user(model: NativeModel, wallet_tools: list) -> ScenarioUser:
    event = Event(id="W1", scenario="Your card fails online.", expected_behaviour="The agent helps.")
    return ScenarioUser(event, model, thoughts=False, tools=wallet_tools)  # type: ignore[arg-type]


@pytest.fixture
def wallet_tools(tmp_path: Path) -> list:
    return load_environment(wallet_config(tmp_path).environment).user_tools


def test_a_user_model_with_native_tool_calls_calls_its_tools_as_functions(wallet_tools) -> None:
    model = NativeModel(AIMessage("", tool_calls=[{"name": "switch_online_payments", "args": FIX, "id": "1"}]))
    step = asyncio.run(native_user(model, wallet_tools).answer(["Agent: Hi."], ending=False, warmer=False,
                                                               may_act=True))
    assert step == UserToolStep("switch_online_payments", FIX)
    (request,) = model.requests
    assert request["tool_choice"] == "required"
    assert [tool["function"]["name"] for tool in request["tools"]] == ["open_card_settings",
                                                                       "switch_online_payments", "reply"]


def test_a_native_reply_is_the_users_turn(wallet_tools) -> None:
    turn = {"message": "Done, it is on.", "decision": "continue", "reason": ""}
    model = NativeModel(AIMessage("", tool_calls=[{"name": "reply", "args": turn, "id": "1"}]))
    step = asyncio.run(native_user(model, wallet_tools).answer(["Agent: Hi."], ending=False, warmer=False,
                                                               may_act=True))
    assert isinstance(step, UserTurn) and step.message == "Done, it is on."


def test_a_native_answer_that_calls_nothing_is_asked_again_as_a_structured_turn(wallet_tools) -> None:
    fallback = BriefUserTurn(message="Hello?", decision="continue", reason="")
    model = NativeModel(AIMessage("I just talk."), turn=fallback)
    step = asyncio.run(native_user(model, wallet_tools).answer(["Agent: Hi."], ending=False, warmer=False,
                                                               may_act=True))
    assert step is fallback and model.requests[-1] == {"schema": "BriefUserTurn"}
