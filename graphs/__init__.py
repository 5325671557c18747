"""The stages of a run, one LangGraph state machine per module: describe, populate, simulate, report."""
