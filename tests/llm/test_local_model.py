"""The embedded model answers a schema-constrained request through its real HTTP server."""

from __future__ import annotations

import asyncio
import socket
import time
from typing import Literal
from urllib.parse import urlsplit

import pytest
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from intellagent.llm import DirectLLM, ModelSpec, ResponseCache, Usage
from intellagent.llm.embedded import SHA256, local_server, model_file
from intellagent.llm.factory import LOCAL_KEEPALIVE_EXPIRY, build_chat_model, cache_identity

pytestmark = pytest.mark.local_model


class Triage(BaseModel):
    flow: Literal["book", "modify", "cancel"]
    passengers: int = Field(ge=1, le=9)


def test_embedded_model_is_verified_before_use():
    path = model_file()
    assert path.stat().st_size == 1_117_320_768
    assert SHA256.startswith("cc324af0")


def test_embedded_model_answers_a_schema_constrained_request(tmp_path):
    spec = ModelSpec(provider="local", max_tokens=64)
    llm = DirectLLM(
        role="policies",
        spec=spec,
        model=build_chat_model(spec, role="policies", seed=0, max_retries=1),
        identity=cache_identity(spec, seed=0),
        cache=ResponseCache(tmp_path / "cache.sqlite"),
        usage=Usage(),
    )
    messages = [
        SystemMessage("Classify the customer's request for an airline agent."),
        HumanMessage("Hi, I need to cancel the trip I booked for me and my two kids."),
    ]
    answer = asyncio.run(llm.answer(messages, Triage, step="test/triage"))
    assert answer.flow == "cancel"
    assert llm.usage.total.calls == 1
    assert llm.usage.total.output_tokens > 0 and llm.usage.total.cost_usd == 0


def test_the_embedded_server_keeps_an_idle_connection_longer_than_its_client_does():
    """The client's keep-alive expiry is below the server's, with a margin, so it never sends a request on a
    connection the server is closing at that moment."""
    address = urlsplit(local_server().base_url)
    with socket.create_connection((address.hostname, address.port)) as connection:
        connection.sendall(b"GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        assert connection.recv(4096).startswith(b"HTTP/1.1 200")
        idle_since = time.monotonic()
        connection.settimeout(60)
        while connection.recv(4096):  # b"" once the server has closed it
            pass
    assert time.monotonic() - idle_since > 2 * LOCAL_KEEPALIVE_EXPIRY
