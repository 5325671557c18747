"""A world as τ-bench keeps it, one document, and τ-bench's hash of it: what grades compare end states by."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from intellagent.environment.environment import TauDocument
from intellagent.imports import user_code

if TYPE_CHECKING:
    from intellagent.environment import Environment


def tau_hash(document: TauDocument) -> str:
    """τ-bench's hash of a world: sha256 of Python's text of its canonical form (objects as sorted pairs)."""
    return hashlib.sha256(str(canonical(document)).encode("utf-8")).hexdigest()


def exported(env: Environment, database: Path) -> TauDocument:
    """The world a database holds, as a τ-bench document."""
    assert env.tau is not None, "the environment has no τ-bench module (environment.tau)"
    with env.session(database) as session, user_code("environment.tau", env.tau.export_tau, fix="fix the module"):
        return env.tau.export_tau(session)


def canonical(value: Any) -> Any:
    if isinstance(value, dict):
        return tuple((key, canonical(item)) for key, item in sorted(value.items()))
    if isinstance(value, list):
        return tuple(canonical(item) for item in value)
    return value

