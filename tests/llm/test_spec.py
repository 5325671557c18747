"""Model SPEC strings."""

import pytest

from intellagent.errors import UsageError
from intellagent.llm import parse_spec


@pytest.mark.parametrize(
    ("text", "provider", "model", "base_url"),
    [
        ("local", "local", None, None),
        ("openai:gpt-4o-mini", "openai", "gpt-4o-mini", None),
        ("azure:my-deployment", "azure", "my-deployment", None),
        ("openai:qwen2.5:7b@http://localhost:11434/v1", "openai", "qwen2.5:7b", "http://localhost:11434/v1"),
        ("anthropic:claude-sonnet-4-5", "anthropic", "claude-sonnet-4-5", None),
        ("ollama:qwen2.5:7b", "ollama", "qwen2.5:7b", None),
        ("google_genai:gemini-2.5-flash", "google_genai", "gemini-2.5-flash", None),
    ],
)
def test_valid_specs(text, provider, model, base_url):
    spec = parse_spec(text)
    assert (spec.provider, spec.model, spec.base_url) == (provider, model, base_url)
    assert spec.label == text


@pytest.mark.parametrize("text", ["gpt-4o", "Anthropic:claude", "local:x", "anthropic:", "openai:", "azure:x@http://h",
                                  "anthropic:claude@http://h", "openai:m@ftp://h"])
def test_invalid_specs_say_what_is_accepted(text):
    with pytest.raises(UsageError) as raised:
        parse_spec(text)
    assert text in str(raised.value)
