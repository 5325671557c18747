"""Dual control (`simulate.dual_control`): whether a dialog's user acts on its own side, or its chatbot does.

Where the domain gives the user tools of its own (`environment.user_tools`), a dialog is played **dual** by
default: the user calls them as the chatbot guides it. A **solo** dialog (τ²-bench's ablation) hands those
tools to the chatbot and leaves the user only talking, so that a chatbot that fails dual but passes solo
reasons well and guides badly. This module is everything the choice changes for a dialog; the dialog player
(`simulate.player`) asks it, and nothing else decides it:

- which ways a run plays each of its chatbot's dialogs (`played_ways`): its own (dual or solo, or none where
  the user has no tools), and under `both` solo beside dual, each a `Way`;
- what a dialog played one way is, on its record (`Way.role`, `Way.dialog_id`): the run's own way is the
  chatbot's (`role: chatbot`, in the run's figures); a solo dialog beside a dual one is `role: solo`, set
  beside the figures in the report (`reports.dual_control`) and never in them;
- which tools each side holds (`dialog_environment`): solo, the chatbot holds the user's tools as its own,
  over MCP too, and the user holds none, so it only talks; dual, each side holds its own.

A dialog's user acts only through the tools it is given (`simulate.actions`), and its grade counts the calls
of each side whoever made them (`outcomes.grading`): neither asks how the dialog was played.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from intellagent.artifacts import DialogRole
from intellagent.artifacts.dialogs import SOLO_SUFFIX
from intellagent.config import Config
from intellagent.environment import Environment

Control = Literal["dual", "solo"]


@dataclass(frozen=True)
class Way:
    """One way a run plays its chatbot's dialogs.

    Attributes:
        control: dual or solo; None on a domain whose user has no tools (played the one way there is).
        role: `chatbot` for the run's own way, `solo` for a solo dialog played beside a dual one.
    """

    control: Control | None
    role: DialogRole = "chatbot"

    def dialog_id(self, played_id: str) -> str:
        """The id of the dialog `played_id` names, played this way: a solo dialog beside a dual one is told apart
        from it by a suffix, which keeps the two ids apart and says nothing a reader needs (`role` says it)."""
        return played_id + SOLO_SUFFIX if self.role == "solo" else played_id


def played_ways(config: Config, environment: Environment) -> list[Way]:
    """The ways the run plays each of its chatbot's dialogs: the run's own first, then solo beside it under
    `both`."""
    if not environment.user_tools:
        return [Way(None)]
    ways = {"dual": [Way("dual")], "solo": [Way("solo")], "both": [Way("dual"), Way("solo", role="solo")]}
    return ways[config.simulate.dual_control]


def own_way(config: Config, environment: Environment) -> Way:
    """The run's own way, which its mutants and its rollouts are played too."""
    return played_ways(config, environment)[0]


def dialog_environment(environment: Environment, control: Control | None) -> Environment:
    """The domain as a dialog played `control` has it: solo, the user's tools are the chatbot's too and the user
    has none; dual (or without a control), each side has its own."""
    return environment.solo if control == "solo" else environment
