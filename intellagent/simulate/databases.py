"""A dialog's world: made whole from its event's for the chatbot, then stored as what the dialog changed."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from intellagent.artifacts import Event
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
        owns_start: whether `start` was made for this dialog (False: it goes on from another, whose start it
            shares).
    """

    event: Path
    start: Path
    played: Path
    stored: Path
    name: str
    owns_start: bool = True

    @classmethod
    def of(cls, folder: RunFolder, event: Event, stored_name: str) -> DialogFiles:
        """The files of a dialog begun on the event's world, stored at `stored_name` (relative to the run folder),
        its database made from the event's world (an earlier attempt's replaced).

        Raises:
            FileNotFoundError: the event's world is missing.
        """
        assert event.database is not None
        source, stored = folder.path(event.database), folder.path(stored_name)
        played = worlds.whole_path(stored)
        start = played.with_name(f"{played.stem}.start.sqlite") if worlds.is_delta(source) else source
        if start != source:
            worlds.materialize(source, start)
        worlds.materialize(start, played)  # a copy of the whole world just made
        return cls(event=source, start=start, played=played, stored=stored, name=stored_name)

    def continued(self, folder: RunFolder, stored_name: str) -> DialogFiles:
        """The files of a dialog that goes on from where this one's world stands, stored at `stored_name`: its
        database a copy of this one's, the event's world as the chatbot first found it shared with it."""
        stored = folder.path(stored_name)
        played = worlds.whole_path(stored)
        worlds.materialize(self.played, played)
        return replace(self, played=played, stored=stored, name=stored_name, owns_start=False)

    def clear(self) -> None:
        """Remove the complete databases made for the dialog, once what it changed is stored (or it failed)."""
        for path in (self.played, self.start) if self.owns_start else (self.played,):
            if path != self.event:
                path.unlink(missing_ok=True)
