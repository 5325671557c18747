"""The parcel desk's τ-bench module: its world as one JSON document (`parcels.json`), in and out of the tables."""

import json
from pathlib import Path
from typing import Any

from sqlmodel import Session, select

from intellagent.environment import Environment

from .schema import Customer, Depot, Item, Parcel

PARTS = {"depots": (Depot, "code"), "customers": (Customer, "customer_id"), "parcels": (Parcel, "tracking_number"),
         "items": (Item, "item_id")}


def build_tau_database(env: Environment, folder: Path, path: Path) -> None:
    """Create the SQLite file `path` holding the document `parcels.json` of `folder`."""
    document = json.loads((Path(folder) / "parcels.json").read_text())
    env.create_database(path, seed=0, background=False)
    with env.session(path) as session:
        for part, (table, key) in PARTS.items():
            session.add_all(table(**{key: record_id, **record}) for record_id, record in document[part].items())


def export_tau(session: Session) -> dict[str, dict[str, Any]]:
    """The tables as the document, each record by its id."""
    document: dict[str, dict[str, Any]] = {}
    for part, (table, key) in PARTS.items():
        rows = [row.model_dump() for row in session.exec(select(table))]
        document[part] = {str(row.pop(key)): row for row in rows}
    return document
