"""Dual control (`simulate.dual_control`): whether a dialog's user acts on its own side, or its chatbot does.

Where the domain gives the user tools of its own (`environment.user_tools`), a dialog is played **dual**
by default: the user calls them as the chatbot guides it. A **solo** dialog (τ²-bench's ablation) hands
those tools to the chatbot and leaves the user only talking, so that a chatbot that fails dual but
passes solo reasons well and guides badly. `both` plays every dialog each way: the dual one keeps its
usual id and counts in the run's figures; the solo one beside it is `<id>-solo`, kept apart as a
mutant's dialog is, and set beside the dual figures in the report.
"""

from __future__ import annotations

from typing import Literal

from intellagent.artifacts import Dialog
from intellagent.config import Config
from intellagent.environment import Environment

Control = Literal["dual", "solo"]
SOLO_SUFFIX = "-solo"


def played_controls(config: Config, environment: Environment) -> list[Control | None]:
    """The ways the run plays each of its chatbot's dialogs: the run's own first (it names the dialog as usual),
    then solo beside it under `both`; None for a domain whose user has no tools, played the one way there is."""
    if not environment.user_tools:
        return [None]
    ways: dict[str, list[Control | None]] = {"dual": ["dual"], "solo": ["solo"], "both": ["dual", "solo"]}
    return ways[config.simulate.dual_control]


def solo_id(played_id: str, *, beside: bool) -> str:
    """The id of a solo dialog: `played_id` as it is when solo is the run's only mode, else marked as beside."""
    return played_id + SOLO_SUFFIX if beside else played_id


def beside(dialog: Dialog) -> bool:
    """Whether `dialog` is a solo one played beside a dual one (`both`): kept out of the run's own figures."""
    return dialog.control == "solo" and dialog.id.endswith(SOLO_SUFFIX)
