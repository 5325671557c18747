"""Repeated trials of one event (`simulate.trials`): their dialog ids and the user each one is played by.

One dialog per event measures a chatbot once; several, each with its own seed for the simulated user
(see `seeds`), show whether the verdict would hold again (pass^k, the flip rate). Trial 1 keeps the
event's id, so a run of one trial per event is exactly what it was; trial t is `<event>-t<t>`. A user
at temperature 0 would play every trial alike, so from two trials on it is sampled at
`TRIAL_TEMPERATURE` at least.
"""

from __future__ import annotations

from intellagent.llm import LLM

TRIAL_TEMPERATURE = 0.7


def trial_id(event_id: str, trial: int) -> str:
    """The id of an event's dialog in trial `trial` (1-based)."""
    return event_id if trial == 1 else f"{event_id}-t{trial}"


def trial_user(llm: LLM, *, repeated: bool) -> LLM:
    """The user model of a run's trials: as configured when each event is played once, else sampled (with each
    dialog's seed, given by `llm.dialog_models.dialog_model`)."""
    if not repeated:
        return llm
    return llm.with_options(temperature=max(llm.spec.temperature, TRIAL_TEMPERATURE))
