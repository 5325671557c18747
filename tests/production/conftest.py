"""The whole-pipeline fixtures the production tests share with tests/pipeline (the scripted LLM of a whole run, and
every model a run builds being it, for the command line)."""

from tests.pipeline.conftest import script, scripted_models

__all__ = ["script", "scripted_models"]
