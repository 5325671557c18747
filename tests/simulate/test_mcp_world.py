"""The run's MCP server gives an endpoint chatbot the dialog's world, one dialog apart from another."""

from __future__ import annotations

import asyncio
import json
import shutil
import sys

from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from scripted_dialogs import ORDERS, dialogs, event, say, shop_config, simulate, stop, verdict

from examples.chatbots.server import completion_body
from intellagent.chatbots import DialogWorld
from intellagent.chatbots.mcp_world import WorldServer
from intellagent.environment import load_environment
from tests.conftest import world_file


async def client_calls(url: str, *calls: tuple[str, dict]) -> tuple[list, list]:
    """The tools the server lists at `url`, and the results of `calls`, through the MCP SDK's own client."""
    async with streamable_http_client(url) as (read, write, *_), ClientSession(read, write) as session:
        await session.initialize()
        listed = (await session.list_tools()).tools
        results = [await session.call_tool(name, arguments) for name, arguments in calls]
    return listed, results


def shop_world(tmp_path, name: str):
    environment = load_environment(shop_config(tmp_path).environment)
    path = tmp_path / f"{name}.sqlite"
    if not (tmp_path / "template.sqlite").exists():
        environment.create_database(tmp_path / "template.sqlite", seed=0, background=False)
        with environment.session(tmp_path / "template.sqlite") as session:
            for order_id, (customer, status) in ORDERS.items():
                session.add(environment.table("orders")(order_id=order_id, customer=customer, status=status))
    shutil.copyfile(tmp_path / "template.sqlite", path)
    return environment, DialogWorld(environment, path)


def test_an_mcp_client_sees_the_agents_tools_and_writes_to_its_own_dialog_only(tmp_path):
    environment, first = shop_world(tmp_path, "first")
    _, second = shop_world(tmp_path, "second")

    async def scenario():
        async with WorldServer(environment).serving() as server:
            with server.hosting("D1", first) as one, server.hosting("D2", second) as two:
                listed, (cancelled,) = await client_calls(one, ("cancel_order", {"order_id": "A1"}))
                _, (looked_up,) = await client_calls(two, ("get_order", {"order_id": "A1"}))
                _, (unknown,) = await client_calls(server.url("D3"), ("get_order", {"order_id": "A1"}))
        return listed, cancelled, looked_up, unknown

    listed, cancelled, looked_up, unknown = asyncio.run(scenario())
    assert [(t.name, t.description, t.input_schema) for t in listed] == [
        (s["function"]["name"], s["function"]["description"], s["function"]["parameters"])
        for s in environment.tool_schemas()
    ]
    assert (cancelled.content[0].text, cancelled.is_error) == ("order A1 cancelled", False)
    assert json.loads(looked_up.content[0].text)["status"] == "placed"  # the other dialog's write is not seen
    assert unknown.is_error and "no dialog D3 is running" in unknown.content[0].text
    assert [(c.name, c.result) for c in first.taken()] == [("cancel_order", "order A1 cancelled")]
    assert [c.name for c in second.taken()] == ["get_order"]


def test_an_openai_endpoint_acts_on_the_dialogs_world_and_its_calls_are_recorded(tmp_path, run_folder, script, server):
    seen = []

    def completion(path, body, headers):
        url = headers["X-IntellAgent-MCP"]
        seen.append(url)
        _, (result,) = asyncio.run(client_calls(url, ("cancel_order", {"order_id": "A1"})))
        return 200, completion_body("bot", f"Done: {result.content[0].text}")

    base = server(completion) + "/v1"
    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1, yes."), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = shop_config(tmp_path, chatbot={"type": "openai", "model": "bot", "base_url": base})
    folder = run_folder(config, [event()])
    simulate(config, folder, script)
    (dialog,) = dialogs(folder)

    assert seen and seen[0].endswith("/dialogs/S001/mcp")
    assert dialog.transcript[2].content == "Done: order A1 cancelled"
    assert [(c.name, c.arguments, c.reported) for c in dialog.transcript[2].tool_calls] == [
        ("cancel_order", {"order_id": "A1"}, False)
    ]
    environment = load_environment(config.environment)
    with environment.session(world_file(folder, "dialogs/S001.delta.json")) as session:
        assert session.get(environment.table("orders"), "A1").status == "cancelled"

    # Played again (another run, another port): the recorded reply is found, as the address is not in its key.
    (folder / "dialogs.jsonl").unlink()
    again = simulate(config, folder, script)
    assert again.exit_code == 0 and dialogs(folder)[0].transcript[2].content == "Done: order A1 cancelled"
    assert len(seen) == 1  # the endpoint was not asked again


def test_without_the_mcp_extra_an_endpoint_runs_without_a_world_and_the_run_says_so(
    tmp_path, run_folder, script, server, monkeypatch, caplog
):
    monkeypatch.setitem(sys.modules, "intellagent.chatbots.mcp_world", None)  # as if mcp were not installed
    bodies = []

    def answer(path, body, headers):
        bodies.append(body)
        return 200, {"reply": "Noted."}

    script.on(role="user", schema="UserTurn", replies=[say("Cancel A1."), stop("success", "ok")])
    script.on(role="critique", schema="Critique", reply=verdict(True))
    config = shop_config(tmp_path, chatbot={"type": "http", "url": server(answer)})
    folder = run_folder(config, [event()])
    simulate(config, folder, script)
    assert dialogs(folder)[0].status == "pass" and "mcp_url" not in bodies[0]
    assert "install the mcp extra (pip install 'intellagent[mcp]')" in caplog.text
