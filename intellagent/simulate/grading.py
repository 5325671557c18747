"""What a played dialog is graded by, once it ended: what its event says a correct chatbot does.

A grader reads the event, the dialog's transcript and its world before and after, and returns the dialog
with its grade (and, where the grade decides it, its status). A τ-bench task's event carries the task's
gold actions and required outputs, and is graded as τ-bench grades it (`intellagent.tau.grading`); a
sampled event says nothing yet of what a correct chatbot does, so its simulated user's verdict, checked
by the critique, stands (`UserVerdict`). Which grader an event gets is decided in one place,
`intellagent.modes.grader`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from intellagent.artifacts import Dialog, Event
from intellagent.environment import Environment


class Grader(Protocol):
    """Grades a played dialog by what its event says a correct chatbot does."""

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path) -> Dialog:
        """`played` with its grade.

        Args:
            environment: the domain, whose tools and tables the grade may use.
            event: the event the dialog played.
            played: the dialog, with its transcript and the checks' findings.
            start: the event's world as the chatbot found it, a complete database.
            end: the dialog's world as the chatbot left it, a complete database.
        """
        ...


class UserVerdict:
    """The grade of an event that says nothing of what a correct chatbot does: the user's verdict stands."""

    def grade(self, environment: Environment, event: Event, played: Dialog, *, start: Path, end: Path) -> Dialog:
        """`played` as it is."""
        return played
