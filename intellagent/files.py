"""The kinds of file a run folder holds, and how each is written so that a crash loses nothing.

JSON files are replaced atomically. JSONL files grow one line per finished item, flushed at once; on
resume, a half-written last line left by a crash is dropped (that item is redone), and when a
stage completes its file is rewritten in id order, so the same work gives the same bytes whatever
order the workers finished in.

Each kind has two sides: its entry in the run folder's catalogue (an `Artifact`: the file's name, its
model, the stage that makes it, whether a frozen test set carries it; see `intellagent.run_folder`),
and, read on one run folder, the file itself (`JsonFile`, `JsonlFile`, `GraphFile`, `TextFile`,
`WorldsFolder`), with its readers and writers.
"""

from __future__ import annotations

import json
import os
import re
import threading
from pathlib import Path
from typing import Any, Generic, Self, TypeVar, overload

import networkx as nx
from pydantic import BaseModel, ValidationError

from intellagent.artifacts.run_info import StageName
from intellagent.errors import UsageError

M = TypeVar("M", bound=BaseModel)
F = TypeVar("F")

DELTA_SUFFIX = ".delta.json"
"""How a stored world's file ends: its rows over the world it starts from (see `environment.worlds`)."""

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


class Artifact(Generic[F]):
    """A catalogue entry: one file or folder of a run folder, and on a run folder, the file itself (`F`).

    Args:
        name: its name in the run folder.
        stage: the stage that makes it (None: the runner, for run.json).
        frozen: whether a frozen test set carries it (what describe and populate make).
    """

    def __init__(self, name: str, *, stage: StageName | None = None, frozen: bool = False) -> None:
        self.name = name
        self.stage = stage
        self.frozen = frozen
        self.attribute = name

    def __set_name__(self, owner: type, attribute: str) -> None:
        self.attribute = attribute

    @overload
    def __get__(self, folder: None, owner: type) -> Self: ...
    @overload
    def __get__(self, folder: object, owner: type) -> F: ...

    def __get__(self, folder: object | None, owner: type) -> Self | F:
        if folder is None:
            return self
        made = self.on(Path(folder.root))  # type: ignore[attr-defined]
        folder.__dict__[self.attribute] = made  # one per folder: a JSONL file's appends share its lock
        return made

    def on(self, root: Path) -> F:
        """The file of the run folder at `root`."""
        raise NotImplementedError

    def of(self, folder: object) -> F:
        """The file on a run folder: the folder's own accessor (`folder.<attribute>`)."""
        return self.__get__(folder, type(folder))

    def missing(self, path: Path) -> UsageError:
        """The one-line error of a stage whose input this is, when it is not there."""
        if self.stage is None:
            return UsageError(f"{path} not found; the folder holds no run")
        return UsageError(f"{path} not found; run the {self.stage} stage first (--stages {self.stage})")


class ArtifactFile:
    """A file of one run folder, as its catalogue entry describes it."""

    def __init__(self, artifact: Artifact[Any], path: Path) -> None:
        self.artifact = artifact
        self.path = path

    def exists(self) -> bool:
        """Whether the file has been written."""
        return self.path.exists()

    def _required(self) -> None:
        if not self.path.exists():
            raise self.artifact.missing(self.path)


class JsonFile(ArtifactFile, Generic[M]):
    """A JSON file holding one `model`."""

    def __init__(self, artifact: Json[M], path: Path) -> None:
        super().__init__(artifact, path)
        self.model = artifact.model

    def load(self) -> M | None:
        """Its content, or None if it is not written yet."""
        if not self.path.exists():
            return None
        try:
            return self.model.model_validate_json(self.path.read_text(encoding="utf-8"))
        except ValidationError as error:
            raise UsageError(f"{self.path} is not a valid {self.model.__name__} ({error.errors()[0]['msg']}); "
                             "delete it or run with --fresh") from error

    def require(self) -> M:
        """Its content, which a stage needs (a one-line error names the stage that makes it)."""
        self._required()
        loaded = self.load()
        assert loaded is not None
        return loaded

    def save(self, item: M) -> None:
        """Write it atomically."""
        write_atomic(self.path, item.model_dump_json(indent=2) + "\n")


class Json(Artifact[JsonFile[M]]):
    """The catalogue entry of a JSON file of one `model`."""

    def __init__(self, name: str, model: type[M], *, stage: StageName | None = None, frozen: bool = False) -> None:
        super().__init__(name, stage=stage, frozen=frozen)
        self.model = model

    def on(self, root: Path) -> JsonFile[M]:
        return JsonFile(self, root / self.name)


class JsonFolderFile(ArtifactFile, Generic[M]):
    """A folder of JSON files, one `model` per item (`<id>.json`)."""

    def __init__(self, artifact: JsonFolder[M], path: Path) -> None:
        super().__init__(artifact, path)
        self.model = artifact.model
        self.stored = artifact.stored

    def item(self, item_id: str) -> JsonFile[M]:
        """The file of one item."""
        return JsonFile(Json(self.stored(item_id), self.model), self.path.parent / self.stored(item_id))


class JsonFolder(Artifact[JsonFolderFile[M]]):
    """The catalogue entry of a folder of JSON files, one `model` per item."""

    def __init__(self, name: str, model: type[M], *, stage: StageName) -> None:
        super().__init__(name, stage=stage)
        self.model = model

    def on(self, root: Path) -> JsonFolderFile[M]:
        return JsonFolderFile(self, root / self.name)

    def stored(self, item_id: str) -> str:
        """Where an item's file is, relative to the run folder."""
        return f"{self.name}/{item_id}.json"


class JsonlFile(ArtifactFile, Generic[M]):
    """An append-only JSONL file of `model` items, each with an `id` and a `status`."""

    def __init__(self, artifact: Jsonl[M], path: Path) -> None:
        super().__init__(artifact, path)
        self.model = artifact.model
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

    def require(self) -> list[M]:
        """The items, which a stage needs (a one-line error names the stage that makes the file)."""
        self._required()
        return self.load()

    def finished(self) -> dict[str, M]:
        """The items an earlier invocation finished, by id (the last written): not those recorded as `error`
        (an outage, a chatbot that crashed), which a resumed stage does again."""
        return {item.id: item for item in self.load() if item.status != "error"}  # type: ignore[attr-defined]

    def statuses(self) -> list[str]:
        """The status of every whole record, as the file stands (a line cut short by a crash is not a record:
        the stage drops it when it resumes)."""
        statuses = []
        for line in self.path.read_text(encoding="utf-8").splitlines() if self.path.exists() else []:
            try:
                statuses.append(json.loads(line).get("status", ""))
            except ValueError:
                continue
        return statuses

    def append(self, item: M) -> None:
        """Add one finished item, durably."""
        line = item.model_dump_json() + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(line)
                handle.flush()
                os.fsync(handle.fileno())

    def replace(self, items: list[M]) -> None:
        """Write the file anew with `items`, in their order."""
        with self._lock:
            write_atomic(self.path, "".join(item.model_dump_json() + "\n" for item in items))

    def finalize(self) -> list[M]:
        """Rewrite the file in id order, keeping the last line written for each id."""
        with self._lock:
            by_id = {item.id: item for item in self.load()}  # type: ignore[attr-defined]
            items = [by_id[key] for key in sorted(by_id, key=id_order)]
            write_atomic(self.path, "".join(item.model_dump_json() + "\n" for item in items))
        return items


class Jsonl(Artifact[JsonlFile[M]]):
    """The catalogue entry of a JSONL file of `model` items: a stage's records, one per item."""

    def __init__(self, name: str, model: type[M], *, stage: StageName, frozen: bool = False) -> None:
        super().__init__(name, stage=stage, frozen=frozen)
        self.model = model

    def on(self, root: Path) -> JsonlFile[M]:
        return JsonlFile(self, root / self.name)


class GraphFile(ArtifactFile):
    """A networkx graph as node-link JSON, with an `edges` list and stable key order."""

    def load(self) -> nx.Graph | None:
        """The graph, or None if it is not written yet."""
        if not self.path.exists():
            return None
        try:
            return nx.node_link_graph(json.loads(self.path.read_text(encoding="utf-8")), edges="edges")
        except (ValueError, KeyError, TypeError) as error:
            stage = self.artifact.stage
            raise UsageError(f"{self.path} is not a node-link graph ({error}); run the {stage} stage again") from error

    def require(self) -> nx.Graph:
        """The graph, which a stage needs (a one-line error names the stage that makes it)."""
        self._required()
        graph = self.load()
        assert graph is not None
        return graph

    def save(self, graph: nx.Graph) -> None:
        """Write it atomically."""
        data = nx.node_link_data(graph, edges="edges")
        write_atomic(self.path, json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n")


class Graph(Artifact[GraphFile]):
    """The catalogue entry of a graph file."""

    def on(self, root: Path) -> GraphFile:
        return GraphFile(self, root / self.name)


class TextFile(ArtifactFile):
    """A text file written whole (a page, an XML document)."""

    def write(self, text: str) -> None:
        """Write it atomically."""
        write_atomic(self.path, text)


class Text(Artifact[TextFile]):
    """The catalogue entry of a text file."""

    def on(self, root: Path) -> TextFile:
        return TextFile(self, root / self.name)


class Folder(Artifact[Path]):
    """The catalogue entry of a folder a stage writes whole (the regression set, a run folder of its own)."""

    def on(self, root: Path) -> Path:
        return root / self.name


class WorldsFolder(ArtifactFile):
    """A folder of stored worlds: each item's as its rows over the world it starts from (`<id>.delta.json`),
    and complete databases (`<name>.sqlite`)."""

    def __init__(self, artifact: Worlds, path: Path) -> None:
        super().__init__(artifact, path)
        self.stored = artifact.stored
        self.whole = artifact.whole


class Worlds(Artifact[WorldsFolder]):
    """The catalogue entry of a folder of stored worlds, or of one kind of them (`kind`: the worlds named
    `<id>.<kind>.delta.json` beside the items' own)."""

    def __init__(self, name: str, *, stage: StageName | None = None, frozen: bool = False, kind: str = "") -> None:
        super().__init__(name, stage=stage, frozen=frozen)
        self.kind = kind

    def on(self, root: Path) -> WorldsFolder:
        return WorldsFolder(self, root / self.name)

    def stored(self, item_id: str) -> str:
        """Where an item's world is stored, relative to the run folder."""
        kind = f".{self.kind}" if self.kind else ""
        return f"{self.name}/{item_id}{kind}{DELTA_SUFFIX}"

    def whole(self, name: str) -> str:
        """Where a complete database of the folder is, relative to the run folder."""
        return f"{self.name}/{name}.sqlite"
