"""A request that never reached the model is sent again, for the embedded model as for a remote provider;
an answer that began and then stopped is never sent again."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from intellagent.llm import DirectLLM, LLMError, ModelSpec, ProviderUnavailable, ResponseCache, Usage
from intellagent.llm.factory import build_chat_model, cache_identity, local_chat_model, local_http_client


class Answer(BaseModel):
    text: str


ANSWER = '{"text": "hi"}'


@dataclass
class Behaviour:
    """How the test server treats requests; every field off is a server that answers each one at once."""

    drop_reused: bool = False  # a second request on one connection is read and the connection closed unanswered
    drop_first: int = 0  # the server's first N requests are read and their connections closed unanswered
    stall_before_head: float = 0.0  # seconds before anything of an answer is sent
    stop_midway: str | None = None  # after the first piece of an answer: "stall" (for 3 s) or "close"
    requests: list[int] = field(default_factory=list)  # the client port of every request, in order


def stream_chunk(content: str | None, *, finish: str | None = None) -> bytes:
    body = {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": {} if content is None else {"role": "assistant", "content": content},
                         "finish_reason": finish}]}
    return b"data: " + json.dumps(body).encode() + b"\n\n"


def completion() -> bytes:
    return json.dumps({
        "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": ANSWER}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5},
    }).encode()


@pytest.fixture
def server():
    """A keep-alive Chat Completions server (streamed or not, as asked) that behaves as its `Behaviour` says."""
    behaviour = Behaviour()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self):
            super().setup()
            self.served = 0

        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            behaviour.requests.append(self.client_address[1])
            self.served += 1
            if (behaviour.drop_reused and self.served > 1) or len(behaviour.requests) <= behaviour.drop_first:
                self.close_connection = True  # read, never answered
                return
            time.sleep(behaviour.stall_before_head)
            if body.get("stream"):
                self.stream()
            else:
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                payload = completion()
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        def stream(self):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            pieces = [stream_chunk(ANSWER[:6])]
            if behaviour.stop_midway is None:
                pieces += [stream_chunk(ANSWER[6:]), stream_chunk(None, finish="stop"), b"data: [DONE]\n\n"]
            for piece in pieces:
                self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.flush()
            if behaviour.stop_midway == "stall":
                time.sleep(3)
            if behaviour.stop_midway is not None:
                self.close_connection = True
                return
            self.wfile.write(b"0\r\n\r\n")

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/v1", behaviour
    httpd.shutdown()


def local_llm(base_url: str, tmp_path, *, timeout: float = 5.0) -> DirectLLM:
    spec = ModelSpec(provider="local", timeout=timeout)
    model = local_chat_model(spec, base_url=base_url, seed=0, http_client=local_http_client(resends=3, slots=1))
    return DirectLLM(role="user", spec=spec, model=model, identity=cache_identity(spec, seed=0),
                     cache=ResponseCache(tmp_path / "c.sqlite"), usage=Usage())


def remote_llm(base_url: str, tmp_path, *, timeout: float = 5.0) -> DirectLLM:
    spec = ModelSpec(provider="openai", model="m", base_url=base_url, timeout=timeout)
    return DirectLLM(role="user", spec=spec, model=build_chat_model(spec, role="user", seed=0, max_retries=3),
                     identity=cache_identity(spec, seed=0), cache=ResponseCache(tmp_path / "c.sqlite"), usage=Usage())


CLIENTS = pytest.mark.parametrize("make_llm", [local_llm, remote_llm], ids=["embedded", "remote"])


def ask(llm: DirectLLM, *questions: str) -> list[str]:
    """The answers to these questions, asked one after the other on the same client."""
    async def run() -> list[str]:
        return [(await llm.answer([HumanMessage(question)], Answer, step="t")).text for question in questions]

    return asyncio.run(run())


@CLIENTS
def test_a_request_on_a_connection_the_server_has_closed_is_sent_again(server, tmp_path, make_llm):
    """The server closes every kept-alive connection as the next request comes in, as llama.cpp's did when a
    request met its keep-alive timeout: each call still gets its answer."""
    base_url, behaviour = server
    behaviour.drop_reused = True

    assert ask(make_llm(base_url, tmp_path), "one", "two", "three") == ["hi", "hi", "hi"]
    assert len(behaviour.requests) > 3  # some went out twice


@CLIENTS
def test_a_request_dropped_before_any_answer_is_sent_again(server, tmp_path, make_llm):
    base_url, behaviour = server
    behaviour.drop_first = 2

    assert ask(make_llm(base_url, tmp_path), "one") == ["hi"]
    assert len(behaviour.requests) == 3


def test_a_server_that_never_answers_stops_the_run_after_the_resends(server, tmp_path):
    base_url, behaviour = server
    behaviour.drop_first = 100

    with pytest.raises(ProviderUnavailable, match="is not answering"):
        ask(local_llm(base_url, tmp_path), "one")
    assert len(behaviour.requests) == 4  # the first try and three resends


def test_a_resend_is_logged_with_its_reason(server, tmp_path, caplog):
    base_url, behaviour = server
    behaviour.drop_first = 1

    with caplog.at_level(logging.DEBUG, logger="intellagent.llm"):
        ask(local_llm(base_url, tmp_path), "one")

    (line,) = [record.getMessage() for record in caplog.records if record.name == "intellagent.llm"]
    assert "sending the request to /v1/chat/completions again (try 2 of 4)" in line
    assert "RemoteProtocolError: Server disconnected without sending a response" in line


@pytest.mark.parametrize("stop", ["stall", "close"])
def test_an_answer_that_stopped_midway_is_not_sent_again(server, tmp_path, stop):
    base_url, behaviour = server
    behaviour.stop_midway = stop

    with pytest.raises((LLMError, ProviderUnavailable)):  # however the failure is reported, it is not sent again
        ask(local_llm(base_url, tmp_path, timeout=1.0), "one")
    assert len(behaviour.requests) == 1


def test_a_request_stalled_before_its_answer_began_is_not_sent_again(server, tmp_path):
    base_url, behaviour = server
    behaviour.stall_before_head = 2.0

    with pytest.raises(LLMError):
        ask(local_llm(base_url, tmp_path, timeout=0.5), "one")
    assert len(behaviour.requests) == 1


def test_the_embedded_client_lets_an_idle_connection_go_well_before_the_server_would(server, tmp_path):
    """llama.cpp closes a connection idle for 5 s; the client lets it go after 2 s at the latest, so it never
    sends on a connection the server is closing."""
    base_url, behaviour = server
    llm = local_llm(base_url, tmp_path)

    async def calls(*pauses: float) -> None:
        for number, pause in enumerate(pauses):
            await llm.answer([HumanMessage(f"question {number}")], Answer, step="t")
            await asyncio.sleep(pause)
        await llm.answer([HumanMessage("last")], Answer, step="t")

    asyncio.run(calls(0.0, 2.0))
    first, second, third = behaviour.requests
    assert first == second  # a connection in use is kept
    assert third != second  # an idle one is let go


def test_the_embedded_client_ignores_proxy_variables(server, tmp_path, monkeypatch):
    """Its server is on this machine: a proxy set for the outside world must not stand in the way."""
    base_url, _ = server
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")  # nothing listens there
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)

    assert ask(local_llm(base_url, tmp_path), "one") == ["hi"]
