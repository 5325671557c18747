"""Rollouts played once per session on three domains, for the tests that read their training files: the shop
(tests/simulate/shop), the store (tests/store: JSON columns, ids of digits) and the airline (τ-bench's data)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.rollouts.domain_rollouts import airline_rollouts, store_rollouts
from tests.rollouts.shop_rollouts import roll_out, rollout_config, shop_folder, shop_script


@pytest.fixture(scope="session")
def shop_rolled_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shop's cancellation, simulated and rolled out (the chatbot careful on its first candidate)."""
    tmp_path = tmp_path_factory.mktemp("shop-rollouts")
    config = rollout_config(tmp_path)
    folder = shop_folder(tmp_path, config)
    roll_out(config, folder, shop_script(config))
    return folder


@pytest.fixture(scope="session")
def store_rolled_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The store's cancellation of a pending order, rolled out."""
    return store_rollouts(tmp_path_factory.mktemp("store-rollouts"))


@pytest.fixture(scope="session")
def airline_rolled_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The airline's cancellation of a reservation on τ-bench's data, rolled out."""
    return airline_rollouts(tmp_path_factory.mktemp("airline-rollouts"))
