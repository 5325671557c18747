"""The pytest plugin: a policy-adherence test in a few lines, next to the chatbot you ship.

    def test_airline_policies(intellagent):
        intellagent.check(
            "configs/airline.yml",
            chatbot=my_chatbot,                       # a callable, a compiled LangGraph graph, an adapter
            scenarios_from="tests/frozen/airline",   # a frozen test set (intellagent.freeze)
            fail_under=0.8,                          # overall pass rate
            min_outcome=0.8,                         # dialogs that reached the expected end state
            min_category={"payment": 0.9},           # per category
            baseline="tests/baseline/airline",       # no policy significantly worse than here
        )

A failing threshold fails the test with the reasons, the violated policies and the dialogs that
show them, and the paths of the reports. Command-line options choose the model of every framework
role (`--intellagent-llm SPEC`) and make the run answer every LLM call from the recorded cache
(`--intellagent-replay`), so CI can re-run a recorded evaluation at no cost, deterministically.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from intellagent.errors import IntellAgentError, RunAborted

# pytest loads this plugin in every project where IntellAgent is installed: the rest of the package
# (models, LangChain, the reports) is imported by the first test that uses the fixture, not at start-up.
if TYPE_CHECKING:
    from intellagent.artifacts.run_report import Report
    from intellagent.config import ConfigSource
    from intellagent.llm import ScriptedLLM


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("intellagent", "policy-adherence tests")
    group.addoption("--intellagent-llm", metavar="SPEC", help="model SPEC of every framework role")
    group.addoption("--intellagent-chatbot-llm", metavar="SPEC", help="model SPEC of an llm_agent chatbot")
    group.addoption(
        "--intellagent-replay", action="store_true",
        help="answer every LLM call from the recorded cache; an unrecorded call fails the test",
    )
    group.addoption(
        "--intellagent-output", metavar="DIR", default="results/pytest",
        help="where each test's run folder goes (default: results/pytest/<test name>)",
    )


class AdherenceTest:
    """Runs evaluations for one test and turns a failed gate into a test failure."""

    def __init__(self, request: pytest.FixtureRequest, script: ScriptedLLM | None) -> None:
        option = request.config.getoption
        self.llm: str | None = option("--intellagent-llm")
        self.chatbot_llm: str | None = option("--intellagent-chatbot-llm")
        self.replay: bool = option("--intellagent-replay")
        name = re.sub(r"[^\w.-]+", "_", request.node.name)
        self.output = Path(request.config.rootpath) / option("--intellagent-output") / name
        self.script = script

    def evaluate(self, config: ConfigSource, **options: Any) -> Report:
        """Run an evaluation into this test's folder and return its report.

        The artifacts are made anew each time; the LLM calls that earlier runs recorded there are
        reused, so an unchanged evaluation costs nothing and can be replayed (`--intellagent-replay`).

        Options are those of `intellagent.api.arun` (chatbot, scenarios_from, thresholds, ...).
        """
        from intellagent.api import evaluate

        if self.llm and "llm" not in options:
            options["llm"] = self.llm
        if self.chatbot_llm and "chatbot_llm" not in options:
            options["chatbot_llm"] = self.chatbot_llm
        options.setdefault("output", self.output)
        options.setdefault("fresh", True)
        options.setdefault("replay", self.replay)
        options.setdefault("script", self.script)
        self.output = Path(options["output"])
        try:
            return evaluate(config, **options)
        except IntellAgentError as error:  # one line that says what to fix, as the command line gives it
            label = "aborted" if isinstance(error, RunAborted) else "error"
            pytest.fail(f"intellagent run {label}: {error}", pytrace=False)

    def check(self, config: ConfigSource, **options: Any) -> Report:
        """`evaluate`, then fail the test if the quality gate failed."""
        report = self.evaluate(config, **options)
        self.assert_gate(report)
        return report

    def assert_gate(self, report: Report) -> None:
        """Fail the test with a readable account if the report's gate failed."""
        if report.gate is not None and not report.gate.passed:
            pytest.fail(failure_message(report, self.output), pytrace=False)


def failure_message(report: Report, folder: Path) -> str:
    """Why the gate failed, which policies were violated in which dialogs, and where the reports are."""
    from intellagent.reports.dialog_outcomes import what_differed
    from intellagent.reports.summary import reports_line
    from intellagent.reports.text import one_line
    from intellagent.run_folder import RunFolder

    assert report.gate is not None
    lines = [f"policy adherence gate failed for {report.name}:"]
    lines += [f"  - {reason}" for reason in report.gate.failures]
    violated = [policy for policy in report.policies if policy.violated]
    if violated:
        lines.append("violated policies:")
        for policy in sorted(violated, key=lambda p: (-p.violated, p.id)):
            lines.append(f"  {policy.id} ({policy.violated} of {policy.tested} dialogs): {one_line(policy.text)}")
            lines += [f"    dialog {v.dialog}, turn {v.turn}: {v.reason}" for v in policy.violations]
    missed = [(d.id, d.outcome.grade) for d in report.dialogs
              if d.outcome and d.outcome.counted and d.outcome.grade and not d.outcome.grade.passed]
    if missed:
        lines.append("dialogs that missed their expected outcome:")
        lines += [f"  {dialog}: {'; '.join(what_differed(grade))}" for dialog, grade in missed]
    lines.append(reports_line(RunFolder(folder)))
    return "\n".join(lines)


@pytest.fixture
def intellagent_script() -> ScriptedLLM | None:
    """The scripted LLM used when a config's provider is `scripted`; override it in a conftest."""
    return None


@pytest.fixture
def intellagent(request: pytest.FixtureRequest, intellagent_script: ScriptedLLM | None) -> AdherenceTest:
    """Policy-adherence checks for this test: `intellagent.check(config, chatbot=..., fail_under=...)`."""
    return AdherenceTest(request, intellagent_script)
