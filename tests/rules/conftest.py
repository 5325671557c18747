"""The store with returns, loaded once for the rules tests."""

from __future__ import annotations

import pytest

from intellagent.environment import Environment
from tests.rules import environment


@pytest.fixture(scope="session")
def returns() -> Environment:
    """The store with returns."""
    return environment()
