"""The stages of a run as LangGraph state machines, one module per stage (describe, populate, simulate,
rollouts, report) and one for a dialog: wiring only, the work being in `intellagent/<stage>/`."""
