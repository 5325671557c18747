"""The training files as a trainer reads them: loaded with `datasets` as the documented commands load them, each
record rendered through two real chat templates (`chat_templates`)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from datasets import load_dataset

from tests.rollouts.chat_templates import ChatTemplate, leftover, trained_spans

TRL_FILES = {"sft": {"messages", "tools"}, "preferences": {"prompt", "chosen", "rejected", "tools"},
             "kto": {"prompt", "completion", "label", "tools"}}
"""The columns each TRL trainer reads, by file, once `metadata` is removed."""


def trl_records(folder: Path, name: str, cache: Path) -> list[dict[str, Any]]:
    """training/<name>.jsonl as the documented commands hand it to TRL: `load_dataset("json", ...)` with its
    `metadata` column removed; its columns checked against what the trainer reads."""
    dataset = load_dataset("json", data_files=str(folder / "training" / f"{name}.jsonl"), split="train",
                           cache_dir=str(cache)).remove_columns("metadata")
    assert set(dataset.column_names) == TRL_FILES[name]
    return list(dataset)


def written(folder: Path, name: str) -> list[dict[str, Any]]:
    """The records of training/<name>.jsonl as written."""
    return [json.loads(line) for line in (folder / "training" / f"{name}.jsonl").read_text().splitlines()]


def untrained_words(template: ChatTemplate, record: dict[str, Any]) -> list[str]:
    """What the spans a trainer learns from `record` hold besides the chatbot's own words and calls (nothing, when
    the record is right); a record with no trained span at all is reported too."""
    spans = trained_spans(template, record)
    if not spans:
        return ["no trained span"]
    return [rest for rest in (leftover(message, span) for message, span in spans) if rest]


CARD_ROW = re.compile(r"^\| (?P<file>[a-z-]+\.jsonl) \| (?P<records>\d+)", re.MULTILINE)


def card_counts(folder: Path) -> dict[str, int]:
    """The records the data card (training/README.md) says each file holds."""
    card = (folder / "training" / "README.md").read_text()
    return {match["file"]: int(match["records"]) for match in CARD_ROW.finditer(card)}


def file_counts(folder: Path) -> dict[str, int]:
    """The records each training file holds."""
    return {path.name: len(path.read_text().splitlines()) for path in sorted((folder / "training").glob("*.jsonl"))}
