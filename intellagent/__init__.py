"""IntellAgent: stress-test a conversational agent against its own policy before it meets real users.

    import intellagent
    report = intellagent.evaluate("configs/airline.yml", chatbot=my_bot, fail_under=0.8)

Stage by stage (artifacts in, artifacts out): `intellagent.api.describe`, `populate`, `simulate`,
`report`; a frozen test set: `intellagent.freeze`, then `evaluate(..., scenarios_from=...)`.
"""

from typing import Any

__all__ = ["Config", "Mutant", "Report", "aevaluate", "afreeze", "evaluate", "freeze", "load_config"]

_EXPORTS = {
    "Config": "intellagent.config",
    "load_config": "intellagent.config",
    "Mutant": "intellagent.simulate.mutant_chatbots",
    "Report": "intellagent.artifacts.run_report",
    "aevaluate": "intellagent.api",
    "afreeze": "intellagent.api",
    "evaluate": "intellagent.api",
    "freeze": "intellagent.api",
}


def __getattr__(name: str) -> Any:
    # Imported on first use, so that `import intellagent.config` stays light and free of cycles.
    if name not in _EXPORTS:
        raise AttributeError(f"module 'intellagent' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(_EXPORTS[name]), name)
