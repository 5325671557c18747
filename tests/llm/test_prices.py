"""List prices come from genai-prices' maintained table (its shipped snapshot: no network)."""

from __future__ import annotations

import pytest

from intellagent.llm.accounting import price_per_token


def test_a_known_model_and_its_dated_snapshot_have_their_list_price() -> None:
    assert price_per_token("gpt-4o-mini", provider="openai") == pytest.approx((0.15e-6, 0.60e-6))
    assert price_per_token("gpt-4o-2024-08-06", provider="openai") == pytest.approx((2.50e-6, 10.00e-6))


def test_a_model_of_another_provider_is_priced_too() -> None:
    assert price_per_token("claude-3-5-sonnet-latest") == pytest.approx((3.00e-6, 15.00e-6))


def test_a_model_the_table_does_not_know_has_no_price() -> None:
    assert price_per_token("my-own-bot") is None
    assert price_per_token(None) is None


def test_a_model_is_priced_under_its_own_provider_never_by_a_guess_from_its_name() -> None:
    from intellagent.llm.client import _prices
    from intellagent.llm.spec import parse_spec

    assert price_per_token("deepseek-chat") is not None  # another provider sells a model of that name ...
    assert _prices(parse_spec("openai:deepseek-chat@http://127.0.0.1:8000/v1")) is None  # ... not this server
    assert _prices(parse_spec("local")) is None
    assert _prices(parse_spec("openai:gpt-4o-mini")) == pytest.approx((0.15e-6, 0.60e-6))
