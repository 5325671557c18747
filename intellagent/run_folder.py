"""The run folder: where every artifact of a run lives, written so that a crash loses nothing.

JSON files are replaced atomically. JSONL files grow one line per finished item, flushed at once; on
resume, a half-written last line left by a crash is dropped (that item is redone), and when a
stage completes its file is rewritten in id order, so the same work gives the same bytes whatever
order the workers finished in.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from intellagent.errors import UsageError

M = TypeVar("M", bound=BaseModel)


_DIGITS = re.compile(r"(\d+)")


def id_order(item_id: str) -> tuple[tuple[int, str], ...]:
    """The sort key of an id: its numbers compared as numbers, so S999 comes before S1000 and S001-t2
    before S001-t10, whether the ids were zero-padded or not (folders of earlier versions read alike)."""
    return tuple((int(part), "") if part.isdigit() else (-1, part) for part in _DIGITS.split(item_id) if part)


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` in one step (a reader never sees half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, path)
    except OSError:  # a full disk, say: nothing half-written is left to be taken for the file
        partial.unlink(missing_ok=True)
        raise


class JsonlArtifact(Generic[M]):
    """An append-only JSONL file of `model` items, each with an `id`."""

    def __init__(self, path: Path, model: type[M]) -> None:
        self.path = path
        self.model = model
        self._lock = threading.Lock()

    def load(self) -> list[M]:
        """The items written so far; a torn last line is dropped from the file."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        lines = raw.split(b"\n")
        items: list[M] = []
        kept = 0
        for number, line in enumerate(lines, start=1):
            if not line.strip():
                kept += len(line) + 1
                continue
            try:
                items.append(self.model.model_validate_json(line))
            except ValidationError as error:
                if number >= len(lines) - 1:  # the last line: an interrupted write
                    break
                raise UsageError(
                    f"{self.path} line {number} is not a valid {self.model.__name__}: "
                    f"{error.errors()[0]['msg']}; repair or delete the file, or run with --fresh"
                ) from error
            kept += len(line) + 1
        if kept < len(raw):
            with self.path.open("r+b") as handle:
                handle.truncate(min(kept, len(raw)))
        return items

    def append(self, item: M) -> None:
        """Add one finished item, durably."""
        line = item.model_dump_json() + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())

    def finalize(self) -> list[M]:
        """Rewrite the file in id order, keeping the last line written for each id."""
        with self._lock:
            by_id = {item.id: item for item in self.load()}  # type: ignore[attr-defined]
            items = [by_id[key] for key in sorted(by_id, key=id_order)]
            write_atomic(self.path, "".join(item.model_dump_json() + "\n" for item in items))
        return items


class RunFolder:
    """Paths and readers/writers of one run's artifacts."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def path(self, name: str) -> Path:
        """The path of an artifact by its name, e.g. 'policies.json' or 'events/S001.delta.json'."""
        return self.root / name

    def relative(self, path: Path) -> str:
        """The name of a file of the run folder, from its path (the inverse of `path`)."""
        return Path(os.path.relpath(path, self.root)).as_posix()

    def exists(self, name: str) -> bool:
        return self.path(name).exists()

    def save(self, name: str, item: BaseModel) -> None:
        """Write a JSON artifact atomically."""
        write_atomic(self.path(name), item.model_dump_json(indent=2) + "\n")

    def save_json(self, name: str, data: object) -> None:
        """Write plain JSON data (e.g. a node-link graph) atomically, with stable key order."""
        write_atomic(self.path(name), json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")

    def load(self, name: str, model: type[M]) -> M | None:
        """A JSON artifact, or None if it does not exist yet."""
        path = self.path(name)
        if not path.exists():
            return None
        try:
            return model.model_validate_json(path.read_text(encoding="utf-8"))
        except ValidationError as error:
            raise UsageError(
                f"{path} is not a valid {model.__name__} ({error.errors()[0]['msg']}); delete it or run with --fresh"
            ) from error

    def jsonl(self, name: str, model: type[M]) -> JsonlArtifact[M]:
        """A JSONL artifact of `model` items."""
        return JsonlArtifact(self.path(name), model)
