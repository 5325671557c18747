"""What a played dialog is graded by, once it ended: what its event says a correct chatbot does.

A grader reads the event, the dialog's transcript and its world before and after, and returns the dialog
with its grade (and, where the grade decides it, its status). Every event with an expected outcome (a
sampled scenario's, verified in populate, or a published task's gold actions) has its dialogs graded
against it by one grader, `OutcomeGrader` (see `intellagent.outcomes.grading`), in either mode. What the
dialog's status follows is the mode's: a sampled scenario's simulated user's verdict, checked by the
critique, stands (`UserVerdict`); a τ-bench task's status is τ-bench's own reward, computed as τ-bench
computes it for its published score (`intellagent.tau.task_grading`). Which grader an event gets is decided in
one place, `intellagent.modes.grader`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from intellagent.artifacts import Dialog, Event
from intellagent.environment import Environment, worlds
from intellagent.outcomes.grading import grade
from intellagent.run_folder import RunFolder

log = logging.getLogger("intellagent")


class Grader(Protocol):
    """Grades a played dialog by what its event says a correct chatbot does."""

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path,
              changes: worlds.Changes | None = None) -> Dialog:
        """`played` with its grade.

        Args:
            environment: the domain, whose tools and tables the grade may use.
            event: the event the dialog played.
            played: the dialog, with its transcript and the checks' findings.
            start: the event's world as the chatbot found it, a complete database.
            end: the dialog's world as the chatbot left it, a complete database.
            changes: what the dialog changed in the event's world, when already known (found from `start` and
                `end` otherwise).
        """
        ...


class GraderOf(Protocol):
    """What grades the dialogs of an event, given the run folder; `intellagent.modes.grader` is the one the stages
    use."""

    def __call__(self, event: Event, folder: RunFolder) -> Grader:
        """The grader of `event`'s dialogs."""
        ...


class UserVerdict:
    """The status of a sampled scenario's dialog: the user's verdict stands."""

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path,
              changes: worlds.Changes | None = None) -> Dialog:
        """`played` as it is."""
        return played


@dataclass(frozen=True)
class OutcomeGrader:
    """Grades a dialog against its event's expected outcome (`Dialog.grade`), after `status` has graded it for
    its status.

    Attributes:
        folder: the run folder, which holds the world the expected calls leave.
        status: what decides the dialog's status (the user's verdict, or τ-bench's reward).
    """

    folder: RunFolder
    status: Grader

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path,
              changes: worlds.Changes | None = None) -> Dialog:
        """`played` with its status's grade, and its outcome's grade when the event has an outcome (a stored
        world that cannot be read leaves the dialog without one, and says so in the log)."""
        graded = self.status.grade(environment, event, played, start=start, end=end, changes=changes)
        expected = event.expected
        if expected is None:
            return graded
        try:
            expected_world = worlds.stored_changes(self.folder.path(expected.world)) if expected.world else {}
        except (OSError, ValueError) as error:
            log.warning("dialog %s is not graded on its expected outcome: %s", played.id, error)
            return graded
        replies = [message.content for message in played.transcript if message.role == "chatbot"]
        calls = [call for message in played.transcript for call in message.tool_calls]
        world = changes if changes is not None else worlds.changes(end, start)
        result = grade(environment, expected, expected_world, calls=calls, replies=replies, world=world)
        return graded.model_copy(update={"grade": result})
