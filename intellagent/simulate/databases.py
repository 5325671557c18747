"""A dialog's world: made whole from its event's for the chatbot, then stored as what the dialog changed."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from intellagent.artifacts import Event
from intellagent.context import RunContext
from intellagent.environment import worlds
from intellagent.run_folder import RunFolder


@dataclass(frozen=True)
class DialogFiles:
    """The files of one dialog's world: the event's world it starts from, the complete database it is
    played on, and where what it changed is stored.

    Attributes:
        event: the event's stored world (a delta, or a complete database).
        start: the event's world made whole, as the chatbot found it: the event's file itself when complete.
        played: the dialog's complete database while it is played and checked.
        stored: the dialog's stored world, its difference from the event's.
        name: where that is, relative to the run.
    """

    event: Path
    start: Path
    played: Path
    stored: Path
    name: str

    @classmethod
    def of(cls, ctx: RunContext, event: Event, played_id: str) -> DialogFiles:
        """The dialog's files, its database made from the event's world (an earlier attempt's replaced).

        Raises:
            FileNotFoundError: the event's world is missing.
        """
        assert event.database is not None
        source, name = ctx.folder.path(event.database), RunFolder.dialog_worlds.stored(played_id)
        stored = ctx.folder.path(name)
        played = worlds.whole_path(stored)
        start = played.with_name(f"{played_id}.start.sqlite") if worlds.is_delta(source) else source
        if start != source:
            worlds.materialize(source, start)
        worlds.materialize(start, played)  # a copy of the whole world just made
        return cls(event=source, start=start, played=played, stored=stored, name=name)

    def clear(self) -> None:
        """Remove the complete databases, once what the dialog changed is stored (or it failed)."""
        for path in (self.played, self.start):
            if path != self.event:
                path.unlink(missing_ok=True)
