"""The labelled set of the airline example (tests/airline/labelled/): 46 dialogs played on τ-bench's world, and a
person's labels of them, read into the framework's own artifacts: the policies as a catalog, each dialog with the
event it played, and the labels as labels.jsonl has them.

`dialogs.yml` writes each dialog compactly (see its header); `labels.jsonl` is in the format a team writes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from intellagent.artifacts import CritiqueExchange, Dialog, Event, Message, PlayedMove, PolicyCatalog, ToolCall
from intellagent.artifacts.labels import Label
from intellagent.persona_files import builtin_personas
from intellagent.reports.label_agreement import read_labels
from intellagent.simulate.users import gave_up

HERE = Path(__file__).resolve().parent / "labelled"
LABELS = HERE / "labels.jsonl"


@dataclass(frozen=True)
class Played:
    """One labelled dialog and the event it played."""

    event: Event
    dialog: Dialog


def catalog() -> PolicyCatalog:
    """The airline's rules the dialogs sample."""
    return PolicyCatalog.model_validate(yaml.safe_load((HERE / "policies.yml").read_text()))


def labelled_dialogs() -> list[Played]:
    """Every dialog of the set, in its order."""
    return [_played(entry) for entry in yaml.safe_load((HERE / "dialogs.yml").read_text())]


def labels() -> list[Label]:
    """The person's labels of the set."""
    return read_labels(LABELS)


def _played(entry: dict[str, Any]) -> Played:
    persona = builtin_personas()[entry["persona"]] if "persona" in entry else None
    event = Event(id=entry["id"], policies=entry["policies"], challenge=3, scenario=" ".join(entry["scenario"].split()),
                  user_rows=entry["knows"], persona=persona)
    transcript = [_message(turn) for turn in entry["transcript"]]
    status, reason, critiques = _ending(entry, sum(message.role == "user" for message in transcript))
    dialog = Dialog(id=entry["id"], event=entry["id"], status=status, reason=reason, policies=entry["policies"],
                    transcript=transcript, critiques=critiques, turns=sum(m.role == "user" for m in transcript),
                    persona=persona)
    return Played(event=event, dialog=dialog)


def _message(turn: dict[str, Any]) -> Message:
    role, content = next((role, turn[role]) for role in ("user", "chatbot") if role in turn)
    calls = [ToolCall(id=f"c{number}", name=name, arguments=arguments, result=result)
             for number, (name, arguments, result) in enumerate(turn.get("calls", []), start=1)]
    moves = [PlayedMove(persona="injection", text=text, injected=False) for text in turn.get("moves", [])]
    return Message(role=role, content=content.strip(), tool_calls=calls, moves=moves)


def _ending(entry: dict[str, Any], user_turns: int) -> tuple[str, str, list[CritiqueExchange]]:
    """How the dialog ended: its status, reason and the critique of the user's last stop."""
    end = entry["end"]
    if end == "turns":
        return "incomplete", f"reached {user_turns} user turns", []
    if end == "gave_up":
        return "incomplete", gave_up("its message repeats the agent's").reason, []
    verdict = entry["verdict"]
    status = "pass" if verdict == "pass" else "fail"
    stop = CritiqueExchange(turn=user_turns + 1, verdict="success" if status == "pass" else "failure",
                            reason="judged", confirmed=True, checked=end == "vetted")
    return status, "the user judged", [stop]
