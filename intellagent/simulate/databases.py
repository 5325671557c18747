"""Each dialog's own copy of its event's database, so the event's stays as populate made it."""

from __future__ import annotations

import shutil
from pathlib import Path

# SQLite's side files: an attempt interrupted mid-write may leave them next to the database.
SIDE_FILES = ("-journal", "-wal", "-shm")


def fresh_copy(source: Path, target: Path) -> None:
    """Make `target` a copy of `source`, dropping whatever an earlier attempt left at `target`.

    Raises:
        FileNotFoundError: `source` does not exist.
    """
    if not source.is_file():
        raise FileNotFoundError(f"the event database {source} is missing; run populate again for this event")
    target.parent.mkdir(parents=True, exist_ok=True)
    for suffix in SIDE_FILES:
        target.with_name(target.name + suffix).unlink(missing_ok=True)
    shutil.copyfile(source, target)
