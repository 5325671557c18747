"""Two real chat templates, rendered as a tokenizer renders them, and what a trainer learns from each record.

The templates in templates/ are Qwen2.5-Instruct's and Llama 3.1-Instruct's, exactly as the models publish them in
their tokenizer_config.json; they were taken from the trl 1.16.0 wheel on PyPI (trl/chat_templates/qwen2_5.jinja
and llama3_1.jinja), which keeps each model's template byte for byte to recognise it. They are rendered in a Jinja
sandbox set up as `transformers` sets one up for `apply_chat_template` (blocks trimmed, `tojson` as JSON that keeps
non-ASCII text and the keys' order, `raise_exception`), so no model or tokenizer is downloaded.

A trainer learns the chatbot's messages and nothing else: with `assistant_only_loss` TRL's SFTTrainer learns the
assistant messages of a conversation, and DPOTrainer and KTOTrainer learn what rendering the prompt and its
completion adds to the prompt rendered with the generation prompt. `trained_spans` cuts a record's rendered text
the same ways; `leftover` says what a span holds besides the message's own words and calls and the template's
markup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from jinja2.ext import loopcontrols
from jinja2.sandbox import ImmutableSandboxedEnvironment

TEMPLATES = Path(__file__).resolve().parent / "templates"


class TemplateError(Exception):
    """A template refused the conversation (its own `raise_exception`)."""


def _raise(message: str) -> None:
    raise TemplateError(message)


def _tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
            separators: tuple[str, str] | None = None, sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@dataclass(frozen=True)
class ChatTemplate:
    """A model's chat template and the special tokens it is rendered with."""

    name: str
    bos_token: str = ""

    @property
    def source(self) -> str:
        """The template's text."""
        return (TEMPLATES / f"{self.name}.jinja").read_text(encoding="utf-8")

    def render(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None, *,
               add_generation_prompt: bool = False) -> str:
        """The conversation as the model reads it."""
        return _compiled(self.source).render(messages=messages, tools=tools or None, bos_token=self.bos_token,
                                             add_generation_prompt=add_generation_prompt)


@cache
def _compiled(source: str) -> Any:
    environment = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[loopcontrols])
    environment.filters["tojson"] = _tojson
    environment.globals["raise_exception"] = _raise
    return environment.from_string(source)


QWEN = ChatTemplate("qwen2_5")
LLAMA = ChatTemplate("llama3_1", bos_token="<|begin_of_text|>")
TEMPLATES_USED = (QWEN, LLAMA)


def appended(template: ChatTemplate, before: list[dict[str, Any]], after: list[dict[str, Any]],
             tools: list[dict[str, Any]] | None, *, generation_prompt: bool) -> str:
    """What rendering `before + after` adds to rendering `before` (with the generation prompt, as DPO and KTO
    render a prompt, or without, as the messages of one conversation follow each other)."""
    head = template.render(before, tools, add_generation_prompt=generation_prompt)
    whole = template.render(before + after, tools)
    assert whole.startswith(head), f"{template.name}: the prompt's rendering is not the start of the whole's"
    return whole[len(head):]


def trained_spans(template: ChatTemplate, record: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Each message a trainer learns from `record` (a line of sft.jsonl, preferences.jsonl or kto.jsonl), with the
    text of its that the trainer learns."""
    tools = record.get("tools")
    if "messages" in record:
        messages = record["messages"]
        return [(message, appended(template, messages[:i], [message], tools, generation_prompt=False))
                for i, message in enumerate(messages) if message["role"] == "assistant"]
    completions = [record[key] for key in ("chosen", "rejected", "completion") if key in record]
    return [(completion[0], appended(template, record["prompt"], completion, tools, generation_prompt=True))
            for completion in completions]


MARKUP = re.compile(r"<\|[a-z_]+\|>|</?tool_call>|\bassistant\b|\"(name|arguments|parameters)\"")


def leftover(message: dict[str, Any], span: str) -> str:
    """What `span` holds besides `message`'s words (as templates trim them), each of its calls' name and arguments
    (an object, rendered once as JSON), and the template's markup: punctuation and blanks at most, when the span is
    the chatbot's own."""
    rest = span
    pieces = [(message.get("content") or "").strip()]
    for call in message.get("tool_calls") or []:
        arguments = call["function"]["arguments"]
        assert isinstance(arguments, dict), f"{call['function']['name']}'s arguments are {type(arguments).__name__}"
        pieces += [json.dumps(arguments, ensure_ascii=False), call["function"]["name"]]
    for piece in pieces:
        assert piece in rest, f"{piece!r} is not rendered in {span!r}"
        rest = rest.replace(piece, "", 1)
    return MARKUP.sub("", rest).strip(" \n{}:,\"")
