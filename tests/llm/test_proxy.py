"""A proxy the user's environment names is honoured by the client that sends the calls, with no warning about
a client that sends none."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from intellagent.llm import DirectLLM, ModelSpec, ResponseCache, Usage
from intellagent.llm.factory import build_chat_model, cache_identity


class Answer(BaseModel):
    text: str


@pytest.fixture
def proxy():
    """An HTTP proxy that answers every Chat Completions request itself, and the targets it was asked for."""
    targets: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            targets.append(self.path)  # a proxy is sent the whole URL
            payload = json.dumps({
                "id": "c1", "object": "chat.completion", "created": 0, "model": "m",
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": '{"text": "via proxy"}'}}],
            }).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}", targets
    httpd.shutdown()


def test_a_configured_proxy_carries_the_calls_and_no_warning_is_printed(proxy, tmp_path, monkeypatch, caplog):
    address, targets = proxy
    monkeypatch.setenv("HTTP_PROXY", address)
    monkeypatch.setenv("NO_PROXY", "localhost")
    # langchain-openai warns once per process: a warning given earlier must not hide this one.
    monkeypatch.setattr("langchain_openai.chat_models._client_utils._proxy_env_warning_emitted", False)
    spec = ModelSpec(provider="openai", model="m", base_url="http://provider.invalid/v1")

    with caplog.at_level(logging.INFO):
        model = build_chat_model(spec, role="user", seed=0, max_retries=0)
        llm = DirectLLM(role="user", spec=spec, model=model, identity=cache_identity(spec, seed=0),
                        cache=ResponseCache(tmp_path / "c.sqlite"), usage=Usage())
        answer = asyncio.run(llm.answer([HumanMessage("hello")], Answer, step="t"))

    assert answer.text == "via proxy" and targets == ["http://provider.invalid/v1/chat/completions"]
    assert not [record for record in caplog.records if "proxy" in record.getMessage().lower()]
