"""What a domain provides to play τ-bench's tasks: its data in and out of its tables.

τ-bench keeps a domain's world as one JSON document; the domain's module (`environment.tau` in the
config, `intellagent.db_schemas.airline.tau` for the airline) loads that document into the domain's tables and
exports the tables back as the same document, so that the hash of an exported state is the hash
τ-bench computes for the same calls.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol, cast

from sqlmodel import Session

from intellagent.errors import UsageError

if TYPE_CHECKING:
    from intellagent.environment import Environment

TauDocument = dict[str, dict[str, Any]]
"""A τ-bench world: for each part (users, reservations, ...), its records by id."""


class TauDomain(Protocol):
    """The two functions a domain's τ-bench module defines."""

    def build_tau_database(self, env: Environment, folder: Path, path: Path) -> None:
        """Create the SQLite file `path` holding the τ-bench data of `folder`."""

    def export_tau(self, session: Session) -> TauDocument:
        """The tables of an open database as a τ-bench document."""


def as_tau_domain(module: ModuleType, reference: str) -> TauDomain:
    """The module named by `environment.tau` (`reference`), checked to define both functions.

    Raises:
        UsageError: it lacks one of them.
    """
    missing = [function for function in ("build_tau_database", "export_tau")
               if not callable(getattr(module, function, None))]
    if missing:
        raise UsageError(f"environment.tau: {reference} defines no {missing[0]}(); a domain's τ-bench module defines "
                         "build_tau_database(env, folder, path) and export_tau(session)")
    return cast(TauDomain, module)
