"""The parts one dialog is played with: the dialog graph's runtime context (`DialogDeps`), and how the dialog
player makes them (`dialog_deps`).

The user role is chosen per event (`intellagent.modes`) and handed in; its tools are those of its side of the
world the dialog is played on (`simulate.control`). Each model samples with the dialog's own seed and counts
its usage in the dialog's share of the run's accounting.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from intellagent.artifacts import Event
from intellagent.chatbots import ChatbotConversation, DialogWorld
from intellagent.chatbots.tool_choice import describe_tools
from intellagent.config import switched_on
from intellagent.context import RunContext
from intellagent.environment import Environment
from intellagent.llm import LLM, Usage
from intellagent.llm.dialog_models import counted, dialog_model
from intellagent.outcomes.facts import request_ids
from intellagent.populate.tables import Tables
from intellagent.simulate.fault_question import longest_question
from intellagent.simulate.trials import trial_user
from intellagent.simulate.users import UserRole, UserRoleOf


@dataclass
class DialogDeps:
    """What the nodes of one dialog work with (the dialog graph's runtime context).

    Attributes:
        event: the event played out.
        policy: the policy document, which the critique reads whole.
        tools: the chatbot's tools as the critique reads them (`describe_tools`).
        conversation: the chatbot under test, opened for this dialog.
        user: the simulated user.
        critique: the critique's model.
        greeting: the chatbot's first message.
        max_turns: user turns after which the dialog ends as `incomplete`.
        max_critiques: times the critique may send the dialog back.
        max_tool_steps: calls the user may make on its own side before each message.
        world: the dialog's database as the chatbot reaches it; the calls made there are recorded.
        name: the dialog's id, which names its trace (the event's, with its trial or mutant).
    """

    event: Event
    policy: str
    tools: str
    conversation: ChatbotConversation
    user: UserRole
    critique: LLM
    greeting: str
    max_turns: int
    max_critiques: int
    max_tool_steps: int = 0
    world: DialogWorld | None = None
    name: str = ""
    started: float = field(default_factory=time.monotonic)

    def clock(self) -> float:
        """Seconds since the dialog started."""
        return round(time.monotonic() - self.started, 2)


def dialog_deps(ctx: RunContext, event: Event, conversation: ChatbotConversation, *, user_role: UserRoleOf,
                played_id: str, usage: Usage, world: DialogWorld | None, environment: Environment,
                max_turns: int | None = None) -> DialogDeps:
    """The parts a dialog is played with; its models sample with the dialog's own seed and count its usage, and
    its user has the tools of its side of `environment` (none in a solo dialog's) and knows which of its records its
    request is about.

    Args:
        max_turns: user turns after which the dialog ends (None: `simulate.max_turns`).
    """
    config = ctx.config
    # An attack's user is its attacker, with a model of its own.
    model = ctx.llms["attacker"] if event.attack else trial_user(ctx.llms["user"], repeated=config.simulate.trials != 1)
    user = dialog_model(model, seed=config.seed, dialog_id=played_id)
    acted_on = environment.required_arguments(event.entitled.tool if event.entitled else None)
    return DialogDeps(
        event=event,
        policy=environment.policy,
        tools=describe_tools(environment.tools),
        conversation=conversation,
        user=user_role(event, counted(user, usage), thoughts=user_thoughts(ctx), tools=environment.user_tools,
                       request_ids=request_ids(event, Tables(environment.tables), acted_on=acted_on)),
        critique=counted(dialog_model(ctx.llms["critique"], seed=config.seed, dialog_id=played_id), usage),
        greeting=config.chatbot.greeting,
        max_turns=max_turns or config.simulate.max_turns,
        max_critiques=config.simulate.max_critiques,
        max_tool_steps=config.simulate.max_tool_steps,
        world=world,
        name=played_id,
    )


def user_thoughts(ctx: RunContext) -> bool:
    """Whether the simulated user writes a private thought (`simulate.user_thoughts`; auto: not on the
    embedded model, whose every token is slow)."""
    return switched_on(ctx.config.simulate.user_thoughts, ctx.llms.spec("user").provider)


def consent_question(ctx: RunContext) -> bool:
    """Whether the critique model reads the user's answer before each write (`simulate.consent_question`; auto: not
    on the embedded model, where an explicit lexicon reads it, at no call)."""
    return switched_on(ctx.config.simulate.consent_question, ctx.llms.spec("critique").provider)


def goal_question(ctx: RunContext) -> bool:
    """Whether the audit asks the critique model if the user pursued its goal (`simulate.goal_question`; auto:
    not on the embedded model, whose mistaken "no" set aside a dialog the chatbot was never judged in)."""
    return switched_on(ctx.config.simulate.goal_question, ctx.llms.spec("critique").provider)


def fault_question(ctx: RunContext) -> int | None:
    """The longest question, in characters, that puts a program's fault of the user to the critique model; None
    when none is asked (`simulate.fault_question`; auto: any on a hosted model, a short one on the embedded one)."""
    return longest_question(ctx.config.simulate.fault_question, ctx.llms.spec("critique").provider)
