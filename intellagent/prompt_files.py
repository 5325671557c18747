"""Prompt templates: one file per prompt under prompts/, versioned with the code.

A prompt file holds its messages in order, each introduced by a marker line `=== system ===`,
`=== user ===` or `=== assistant ===`; placeholders are `{name}` (write `{{` and `}}` for literal
braces). Prompts take no clock time or random ids, so the same work renders the same request.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any

from langchain_core.messages import BaseMessage
from langchain_core.prompts import ChatPromptTemplate

from intellagent.bundled import bundled

PROMPTS_DIR = bundled("prompts")

_MARKER = re.compile(r"^=== (system|user|assistant) ===[ \t]*$", re.MULTILINE)
_ROLES = {"system": "system", "user": "human", "assistant": "ai"}


@cache
def load_prompt(name: str) -> ChatPromptTemplate:
    """The template of `prompts/<name>.md`, e.g. `load_prompt("describe/flows")`."""
    path = PROMPTS_DIR / f"{name}.md"
    text = path.read_text(encoding="utf-8")
    parts = _MARKER.split(text)
    if len(parts) < 3 or parts[0].strip():
        raise ValueError(f"{path}: a prompt file starts with a marker line such as '=== system ==='")
    messages = [(_ROLES[role], body.strip()) for role, body in zip(parts[1::2], parts[2::2], strict=True)]
    return ChatPromptTemplate.from_messages(messages)


def render(name: str, **values: Any) -> list[BaseMessage]:
    """The messages of a prompt with its placeholders filled in."""
    template = load_prompt(name)
    missing = set(template.input_variables) - set(values)
    if missing:
        raise KeyError(f"prompt {name} needs {', '.join(sorted(missing))}")
    return template.format_messages(**values)


def prompt_text(name: str, **values: Any) -> str:
    """The text of a one-message prompt with its placeholders filled in: a note added to another prompt."""
    return str(render(name, **values)[0].content)
