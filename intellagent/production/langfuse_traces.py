"""Langfuse exports: traces with their observations, sessions of traces, or observations one per record.

A record is a trace (`{"id", "sessionId", "input", "output", "observations": [...]}`, as a trace's JSON download
holds it), a session (`{"id", "traces": [...]}`), or one observation (`{"id", "traceId", "type", "startTime",
"input", "output"}`, as the observations export and API list them). The traces of one session are one
conversation, and so are the observations of one trace that belongs to none; they are put together in the order
they started. A generation (`type: GENERATION`) shows the messages it was given (`input`: a list of messages, or
`{"messages": [...]}`) and its answer (`output`: a message, a string, or the provider's response); a tool
observation (`type: TOOL`) gives its output to the call it answers. A trace's own input and output are read only
when no generation shows the conversation.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from intellagent.production.chat_logs import said
from intellagent.production.entries import Entry, NotAConversation, entries, result_text
from intellagent.production.threads import Broken, Part, Place

_OBSERVATION_KINDS = {"GENERATION", "SPAN", "EVENT", "TOOL", "AGENT", "CHAIN", "RETRIEVER", "EVALUATOR", "EMBEDDING",
                      "GUARDRAIL"}


def is_langfuse(record: Any) -> bool:
    """Whether a record is a Langfuse trace, session or observation."""
    if not isinstance(record, dict):
        return False
    return (isinstance(record.get("observations"), list) or isinstance(record.get("traces"), list)
            or ("traceId" in record and record.get("type") in _OBSERVATION_KINDS))


def langfuse_parts(record: Any, place: Place) -> list[Part | Broken]:
    """What a trace, a session or an observation shows of its conversation; an observation that cannot be read is
    reported with its place.

    Raises:
        NotAConversation: it is none of them.
    """
    if not is_langfuse(record):
        raise NotAConversation("holds no Langfuse `observations`, `traces`, or observation `type` and `traceId`")
    if isinstance(record.get("traces"), list):
        traces = [(trace, str(record.get("id") or "")) for trace in record["traces"] if isinstance(trace, dict)]
    elif isinstance(record.get("observations"), list):
        traces = [(record, "")]
    else:
        return _observed([record], place, thread=_thread(record, record.get("traceId")), counted=False)
    found: list[Part | Broken] = []
    for trace, session in traces:
        thread = f"session {session}" if session else _thread(trace, trace.get("id"))
        observations = [o for o in trace.get("observations") or [] if isinstance(o, dict)]
        found += _observed(observations, place, thread=thread, counted=True, start=len(found))
        found.append(replace(_part(trace, place, thread, at=str(trace.get("timestamp") or "")), summary=True))
    return found


def _thread(item: dict[str, Any], trace: Any) -> str:
    session = item.get("sessionId")
    return f"session {session}" if session else f"trace {trace or ''}"


def _observed(observations: list[dict[str, Any]], place: Place, *, thread: str, counted: bool,
              start: int = 0) -> list[Part | Broken]:
    found: list[Part | Broken] = []
    for number, observation in enumerate(observations, start=start + 1):
        where = place.within("observation", number) if counted else place
        at = str(observation.get("startTime") or "")
        try:
            if observation.get("type") == "TOOL":
                found.append(Part(place=where, entries=(), thread=thread, name=_named(thread), at=at,
                                  results=(Entry("tool", result_text(observation.get("output")),
                                                 tool=observation.get("name")),)))
            elif observation.get("type") == "GENERATION":
                found.append(_part(observation, where, thread, at=at))
        except NotAConversation as error:
            found.append(Broken(where, str(error)))
    return found


def _part(item: dict[str, Any], place: Place, thread: str, *, at: str) -> Part:
    """The messages an observation or a trace was given, then its answer."""
    given, output = item.get("input"), item.get("output")
    if isinstance(given, dict) and isinstance(given.get("messages"), list):
        given = given["messages"]
    found = [Entry("user", given)] if isinstance(given, str) else said(given, key="input") if isinstance(
        given, list) else []
    found += _answer(output)
    return Part(place=place, entries=tuple(found), thread=thread, name=_named(thread), at=at)


def _answer(output: Any) -> list[Entry]:
    """A generation's answer: a message, a provider's response (its first choice, or its content blocks), or text."""
    if output is None:
        return []
    if isinstance(output, str):
        return [Entry("chatbot", output)]
    if isinstance(output, dict) and isinstance(output.get("choices"), list) and output["choices"]:
        output = output["choices"][0].get("message", {}) if isinstance(output["choices"][0], dict) else {}
    if isinstance(output, dict) and "role" not in output and isinstance(output.get("content"), list):
        output = {**output, "role": "assistant"}
    if isinstance(output, list):
        return said(output, key="output")
    return entries(output)


def _named(thread: str) -> str:
    return thread.split(" ", 1)[1]
