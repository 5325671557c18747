"""Every prompt file parses and renders; a missing value is named."""

from __future__ import annotations

import pytest

from intellagent.prompt_files import PROMPTS_DIR, load_prompt, render

ALL_PROMPTS = sorted(str(p.relative_to(PROMPTS_DIR).with_suffix("")) for p in PROMPTS_DIR.rglob("*.md"))


@pytest.mark.parametrize("name", ALL_PROMPTS)
def test_every_prompt_renders_with_its_variables(name):
    template = load_prompt(name)
    messages = render(name, **{variable: f"<{variable}>" for variable in template.input_variables})
    assert messages and all(message.content for message in messages)
    for variable in template.input_variables:
        assert any(f"<{variable}>" in message.content for message in messages)


def test_a_missing_value_is_named():
    name = next(n for n in ALL_PROMPTS if load_prompt(n).input_variables)
    with pytest.raises(KeyError, match=load_prompt(name).input_variables[0]):
        render(name)
