"""report.json: the typed report of a run. Field order is the key order of the file, so keep it stable.

Every rate comes with its counts and a 95% Wilson interval; `user_fault`, `incomplete` and `error` dialogs
are counted apart and never enter a rate.

A report is its core (`Report`'s fields: the overall pass rate, the policies, categories, flows, challenge
levels, coverage and dialogs) and its sections (`Report.sections`): the figures of the outcome grade, of the
personas, of repeated trials, … each written under a top-level key of its own and read through the section
that made it (`intellagent.reports.sections`). The models of the sections' figures are here too, so that a
report is one file's worth of types.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from intellagent.artifacts.adversary import StrategyName
from intellagent.artifacts.analysis import AnalysisStatus, VerdictSource
from intellagent.artifacts.audit import UserFault
from intellagent.artifacts.dialogs import DialogStatus
from intellagent.artifacts.outcomes import OutcomeGrade
from intellagent.artifacts.policies import Passage
from intellagent.artifacts.rates import Rate, Share
from intellagent.artifacts.usage import Tally


class StageUsage(Tally):
    """What one stage took: LLM calls, tokens, cost, and wall time over all invocations of the run and in the last;
    and what it made, as run.json counts it."""

    duration_s: float | None = Field(default=None, description="Seconds over every invocation of the run.")
    invocation_s: float | None = Field(default=None, description="Seconds in the invocation that wrote the report.")
    items: int | None = Field(default=None, description="Records in the stage's output file (run.json's count).")
    errors: int | None = Field(default=None, description="Of those, the records whose status is `error`.")
    skipped: int | None = Field(default=None, description="Of those, the records an earlier invocation had made.")


class RunUsage(StageUsage):
    """What the whole run took, and per stage."""

    unpriced_models: list[str] = Field(default_factory=list, description="Models whose cost is unknown (not in total).")
    stages: dict[str, StageUsage] = Field(default_factory=dict)


class Overall(BaseModel):
    """The headline: how many dialogs ended how, and the pass rate of those that got a verdict."""

    dialogs: int
    by_status: dict[str, int] = Field(description="pass, fail, user_fault, incomplete, error: always these five keys.")
    pass_rate: Rate = Field(description="Passed among dialogs with a verdict (pass or fail).")
    scenario_errors: int = Field(description="Scenarios that could not be written (no dialog was run).")
    event_errors: int = Field(description="Scenarios whose database could not be built (no dialog was run).")
    usage: RunUsage


class PolicyViolationNote(BaseModel):
    """A dialog in which a policy was broken, why, and who found it (the expected outcome, a check, or the judge)."""

    dialog: str
    turn: int | None = None
    reason: str
    source: VerdictSource = "judge"
    check: str | None = Field(default=None, description="The deterministic check that found it.")
    evidence: str | None = Field(
        default=None, description="The tool call or row at fault, when a check or the expected outcome found it."
    )


Backing = Literal["outcome", "program"]
"""What backs a policy's verdict where it was ruled on: a verified expected outcome, or a program over the trace (a
check, the framework's or the domain's hand-written one, a rules file's rule, an assertion compiled from the
policy's text)."""


class PolicyResult(BaseModel):
    """One policy: what it says, how often it was sampled and tested, and how it held up."""

    id: str
    text: str
    category: str
    flows: list[str]
    challenge: int
    sampled: int = Field(description="Scenarios it was sampled into.")
    tested: int = Field(description="Dialogs with a verdict that actually tested it.")
    passed: int
    violated: int
    pass_rate: Rate
    violations: list[PolicyViolationNote] = Field(description="The dialogs that broke it, with the reason.")
    checks: list[str] = Field(default_factory=list, description="Deterministic checks that enforce it.")
    disputed: int = Field(default=0, description="Dialogs in which the judge and a check disagreed on it.")
    backed_by: list[Backing] = Field(
        default_factory=list,
        description="The programs that back its verdict, strongest first (none: the judge alone decides it).",
    )


class GroupResult(BaseModel):
    """Adherence of a group of policies (a category or a flow), counted per policy test."""

    id: str
    name: str
    policies: int
    tests: int = Field(description="(dialog, policy) pairs in which a policy of the group was tested.")
    passed: int
    violated: int
    pass_rate: Rate


class LevelResult(BaseModel):
    """Pass rate of the dialogs whose challenge score is at or above a level."""

    level: int
    pass_rate: Rate


class GroupCoverage(BaseModel):
    """How many of a group's policies some dialog tested."""

    id: str
    name: str
    tested: int
    total: int
    share: float | None
    never_tested: list[str]


class PolicyPair(BaseModel):
    """A strongly linked pair of policies from the policy graph."""

    policies: tuple[str, str]
    weight: float
    tested_together: bool


class PairCoverage(BaseModel):
    """How many of the graph's strongly weighted pairs some dialog tested together."""

    threshold: float
    total: int
    tested: int
    share: float | None
    pairs: list[PolicyPair]


class Coverage(BaseModel):
    """What the run actually exercised."""

    tested: int
    total: int
    share: float | None
    never_tested: list[str]
    flows: list[GroupCoverage]
    categories: list[GroupCoverage]
    strong_pairs: PairCoverage
    passages: int | None = Field(default=None, description="Passages of the policy document that may state a rule "
                                 "(None: not counted by the describe stage that made the policies).")
    uncovered: list[Passage] = Field(default_factory=list, description="Passages no policy comes from: what they "
                                     "say is never tested.")


class PolicyChange(BaseModel):
    """One policy compared with the baseline run."""

    id: str
    before: Rate
    after: Rate
    change: float | None = Field(description="after.rate - before.rate, when both were tested.")
    p_value: float = Field(description="One-sided Fisher exact test that it passes less often now.")
    significantly_worse: bool


class BaselineComparison(BaseModel):
    """This run against an earlier run of the same config."""

    folder: str
    name: str
    test: str = Field(description="The test that decides 'significantly worse', and its level.")
    overall_before: Rate
    overall_after: Rate
    policies: list[PolicyChange]
    significantly_worse: list[str]
    new_violations: list[str] = Field(description="Violated now, not violated in the baseline.")
    newly_covered: list[str] = Field(description="Tested now, never tested in the baseline.")
    no_longer_covered: list[str] = Field(description="Tested in the baseline, never tested now.")
    not_comparable: list[str] = Field(description="In one run only, or with a different text.")


class Gate(BaseModel):
    """The quality gate: its settings and why it failed (no failures: it passed).

    Beside the core's thresholds below, it holds each section's (`min_outcome`, `min_persona`, `min_pass_k`,
    `baseline`, …: the settings the sections' rules read), under the setting's own name.
    """

    model_config = ConfigDict(extra="allow")

    fail_under: float | None
    min_category: dict[str, float] = Field(default_factory=dict)
    min_policy: dict[str, float] = Field(default_factory=dict)
    gate_on: str = Field(
        default="point", description="point: the rates are compared; lower_bound: their Wilson low ends."
    )
    passed: bool
    failures: list[str]

    @property
    def is_set(self) -> bool:
        """Whether any threshold or baseline was given, or the gate failed anyway (a run that judged nothing)."""
        sections = (self.model_extra or {}).values()
        return bool(self.fail_under is not None or self.min_category or self.min_policy or self.failures
                    or any(value not in (None, {}, []) for value in sections))

    @model_serializer(mode="wrap")
    def _thresholds_first(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """The sections' thresholds beside the core's, the verdict last, as a reader looks for them."""
        data: dict[str, Any] = handler(self)
        verdict = {key: data.pop(key) for key in ("gate_on", "passed", "failures") if key in data}
        return {**data, **verdict}


class DialogOutcome(BaseModel):
    """A dialog against its event's expected outcome, as this report counts it."""

    counted: bool = Field(description="Whether its grade enters the outcome figures: its event has a verified "
                          "outcome, and the outcome speaks in it (it ran, and its simulated user was not cut short).")
    reason: str | None = Field(default=None, description="Why it is not counted.")
    grade: OutcomeGrade | None = Field(default=None, description="Its grade (dialogs.jsonl's), when it has one.")


class PersonaPolicy(BaseModel):
    """One policy as the dialogs of one persona tested it."""

    policy: str
    pass_rate: Rate = Field(description="passed: the tests in which it held; total: the dialogs with a verdict that "
                            "tested it.")


class PersonaResult(BaseModel):
    """How the chatbot held its rules against one kind of user."""

    name: str
    description: str
    adversarial: bool
    dialogs: int = Field(description="The chatbot's dialogs with a user of this persona.")
    by_status: dict[str, int] = Field(description="pass, fail, user_fault, incomplete, error: always these keys.")
    pass_rate: Rate = Field(description="Passed among those dialogs with a verdict.")
    policies: list[PersonaPolicy] = Field(description="Per policy its dialogs tested, in policy id order.")
    outcome_pass_rate: Rate | None = Field(
        default=None, description="Passed among its dialogs graded on an expected outcome (None: no dialog of the "
        "run sought one)."
    )


class Robustness(BaseModel):
    """The robustness gap: how much less often the chatbot passes against adversarial users than against the
    others (every persona not marked adversarial: the cooperative, impatient, vague, ... user)."""

    cooperative: Rate = Field(description="Pass rate of the dialogs whose persona is not adversarial.")
    adversarial: Rate = Field(description="Pass rate of the dialogs whose persona is adversarial.")
    gap: float | None = Field(
        default=None, description="cooperative.rate - adversarial.rate; None unless both got a verdict."
    )
    low: float | None = Field(default=None, description="Newcombe's 95% interval of the gap, from the two Wilson "
                              "intervals.")
    high: float | None = None


class PersonaFigures(BaseModel):
    """How the chatbot held its rules against each kind of user, and the robustness gap between them."""

    results: list[PersonaResult] = Field(description="Per persona of the users, the adversarial ones last, by name.")
    robustness: Robustness


class DialogResult(BaseModel):
    """One dialog's outcome as counted in this report."""

    id: str
    status: AnalysisStatus
    simulated: DialogStatus = Field(description="The simulation's own verdict.")
    persona: str | None = Field(default=None, description="Its user's persona (None: it had none).")
    challenge: int
    policies: list[str]
    tested: list[str]
    violated: list[str]
    error: str | None = None
    given_up: list[str] = Field(
        default_factory=list, description="The scenario's facts populate could not make true, with the reasons."
    )
    disputed: list[str] = Field(default_factory=list, description="Policies the judge and a check disagree on.")
    judge_error: str | None = Field(default=None, description="Why the judge gave no verdict (the others stand).")
    outcome: DialogOutcome | None = Field(
        default=None, description="How it fared against its event's expected outcome (None: the event was made "
        "without one being sought, as in runs of older versions)."
    )
    user_faults: list[UserFault] = Field(default_factory=list, description="What its simulated user did wrong.")


class SimulatorFaults(BaseModel):
    """How often the simulated user was at fault, and the dialogs of the chatbot its faults kept out of every figure."""

    audited: int = Field(description="The chatbot's dialogs whose simulated user was audited (every one that ran).")
    faulted: Share = Field(description="count: audited dialogs whose user made at least one fault.")
    kept_out: list[str] = Field(description="The dialogs whose user's fault could have decided their verdict "
                                "(`user_fault`): in no figure of the chatbot.")
    kept_out_verdicts: dict[str, int] = Field(
        default_factory=dict, description="How many of those would have passed and how many failed ({pass, fail}): "
        "one rule sets both aside, so that the figures lean neither way.")
    read_as_none: int = Field(default=0, description="Faults a program found that the critique model, asked, read as "
                              "none: kept in the audit, setting nothing aside.")
    kinds: dict[str, int] = Field(description="Per kind of fault, the audited dialogs with at least one.")
    judge_errors: int = Field(default=0, description="Dialogs in which the judge's question on the user's goal got "
                              "no answer (the program's faults stand).")


class PassK(BaseModel):
    """pass^k: the estimated chance that all k trials of an event pass."""

    k: int
    value: float | None = Field(description="The mean over `events` of C(c, k) / C(n, k); None if no event had k.")
    events: int = Field(description="Events with at least k judged trials.")


class TrialFigures(BaseModel):
    """How repeatable the verdicts were, when every event was played more than once (simulate.trials)."""

    trials: int = Field(description="Trials per event: the most any event was played (--trials auto plays some "
                        "more than others).")
    fewest: int = Field(default=0, description="The fewest trials of an event (as `trials` unless --trials auto).")
    pass_k: list[PassK] = Field(description="Overall, for k = 1..trials, each over the events with k trials or more.")
    policies: dict[str, list[PassK]] = Field(description="Per policy id, over the trials that tested it.")
    personas: dict[str, list[PassK]] = Field(
        default_factory=dict, description="Per persona, over the events its user played."
    )
    flipped: int = Field(description="Event × policy pairs on which the trials disagreed.")
    pairs: int = Field(description="Event × policy pairs with two or more trials that tested the policy.")
    flip_rate: float | None = Field(description="flipped / pairs; None without such pairs.")
    flaky: list[str] = Field(default_factory=list, description="Events whose judged trials disagreed (a pass and a "
                             "fail): their verdict is the luck of the simulation.")

    @property
    def uneven(self) -> bool:
        """Whether some events were played more often than others (--trials auto)."""
        return 0 < self.fewest < self.trials


class TauPassK(BaseModel):
    """τ-bench's pass^k over the tasks, with a 95% interval."""

    k: int
    value: float | None = Field(description="The mean over the tasks of C(c, k) / C(n, k); None if no task had k.")
    low: float | None = Field(default=None, description="Wilson interval of the mean, its k-estimates as counts.")
    high: float | None = None
    tasks: int = Field(description="Tasks with at least k graded trials.")


class TauFailure(BaseModel):
    """A dialog that did not earn a task's reward, and why."""

    dialog: str
    error: str | None = Field(default=None, description="Why the dialog failed to run, if it did (reward 0).")
    missed: list[str] = Field(default_factory=list, description="Gold writes the chatbot did not make.")
    unexpected: list[str] = Field(default_factory=list, description="Writes no gold action makes.")
    missed_reads: list[str] = Field(default_factory=list, description="Gold look-ups the chatbot did not make; "
                                    "they never cost the reward.")
    unsaid: list[str] = Field(default_factory=list, description="Required outputs no reply stated.")
    diff: list[str] = Field(default_factory=list, description="Records whose end state differs from the gold one.")


class TauTaskResult(BaseModel):
    """One τ-bench task over its trials."""

    task: int = Field(description="The τ-bench task number.")
    id: str = Field(description="Its event's id (T + the number).")
    trials: int = Field(description="Graded trials.")
    passed: int = Field(description="Trials with reward 1.")
    policies: list[str] = Field(default_factory=list, description="The policies its scenario tests.")
    failures: list[TauFailure] = Field(default_factory=list)


class TauScore(BaseModel):
    """The run's τ-bench score: pass^1..pass^K over the published tasks it played."""

    tasks: int = Field(description="Tasks played.")
    trials: int = Field(description="Trials per task (the most any task had).")
    pass_k: list[TauPassK]
    errors: int = Field(default=0, description="Dialogs that failed to run: counted as reward 0.")
    results: list[TauTaskResult] = Field(description="Per task, in τ-bench's order.")


class MutantResult(BaseModel):
    """One mutant of a calibrated run, and whether the run caught it."""

    name: str
    kind: str = Field(description="omit, opposite (automatic, llm_agent) or supplied.")
    policies: list[str] = Field(description="The policies it breaks.")
    outcome: Literal["caught", "missed", "unjudged", "error"] = Field(
        description="caught: a dialog of it recorded a violation of one of its policies; missed: its judged dialogs "
        "did not; unjudged: none of its dialogs got a verdict; error: it could not be made (see reason)."
    )
    dialogs: list[str] = Field(description="Its dialogs' ids.")
    caught_in: list[str] = Field(default_factory=list, description="The dialogs that recorded the violation.")
    caught_by: list[str] = Field(default_factory=list, description="Who recorded it: judge and/or check names.")
    reason: str = ""


class PolicyDetection(BaseModel):
    """How many of the mutants that break one policy the run caught."""

    policy: str
    detection: Rate = Field(description="passed: mutants caught; total: mutants with a judged dialog.")


class PersonaDetection(BaseModel):
    """How often the mutants' dialogs with users of one persona caught their mutant."""

    persona: str
    detection: Rate = Field(description="passed: the dialogs that recorded a violation of their mutant's rule; total: "
                            "the mutants' dialogs with a verdict and a user of this persona.")


class Calibration(BaseModel):
    """Seeded violations: whether the run notices a chatbot that breaks a rule on purpose."""

    mutants: list[MutantResult]
    detection: Rate = Field(description="passed: mutants caught; total: mutants with a judged dialog.")
    policies: list[PolicyDetection] = Field(description="Detection per mutated policy.")
    personas: list[PersonaDetection] = Field(default_factory=list, description="Detection per persona of the users "
                                             "that played the mutants' dialogs.")
    false_alarms: Share = Field(
        description="On the chatbot under test: violations recorded among the tests of the mutated policies. The "
        "chatbot may really break them, so this bounds the false alarms from above."
    )


class CallScore(BaseModel):
    """Tool-call precision, recall and F1 over graded dialogs, from their summed counts (never a mean of ratios);
    a call matches an expected call by tool and arguments."""

    precision: Share = Field(description="Calls matching an expected call (count) among the calls made (total).")
    recall: Share = Field(description="Expected calls matched (count) among the expected calls (total).")
    f1: float | None = Field(
        description="The harmonic mean of the two, 2 × matched / (made + expected); None when no call was made or "
        "none was expected."
    )

    @classmethod
    def of(cls, *, expected: int, made: int, matched: int) -> CallScore:
        """The score of `matched` calls among `made`, against `expected` ones."""
        f1 = round(2 * matched / (made + expected), 4) if made and expected else None
        return cls(precision=Share.of(matched, made), recall=Share.of(matched, expected), f1=f1)


class OutcomeGroup(BaseModel):
    """The graded dialogs of a flow or of a policy (those whose scenario sampled it): how many earned the reward,
    and their tool calls."""

    id: str
    name: str
    pass_rate: Rate = Field(description="Graded dialogs with reward 1.")
    calls: CallScore


class UnverifiedEvent(BaseModel):
    """An event with no verified expected outcome: its dialogs are judged without one."""

    id: str
    reason: str


class OutcomeFloors(BaseModel):
    """What two chatbots that need no test would score on the run's outcomes: one that does nothing (the empty trace)
    and one that makes every change asked, the forbidden ones too (the reckless trace). An outcome pass rate means
    only what it stands above its floor."""

    outcomes: int = Field(description="Events with a verified expected outcome whose floor was measured.")
    deliveries: int = Field(description="Of those, the outcomes in which a rule-keeping chatbot changes something for "
                            "the user (kind `delivery`); the others are refusals, counted apart.")
    nothing: Share = Field(description="The outcomes a chatbot that does nothing reaches.")
    forbidding: int = Field(description="The outcomes that forbid at least one write.")
    reckless: Share = Field(description="Of those, the ones a reckless chatbot reaches all the same (0 when the "
                            "forbidden writes are caught).")
    non_discriminating: list[str] = Field(
        default_factory=list, description="The events whose outcome a chatbot that does nothing reaches."
    )
    graded_floor: Rate = Field(description="Over the dialogs the outcome figures count: those on an event a "
                               "chatbot that does nothing would pass, the floor under the outcome pass rate.")
    unmeasured: int = Field(default=0, description="Outcomes stored before floors were measured (no floor).")


class Outcomes(BaseModel):
    """How close the chatbot came to what a rule-keeping chatbot does: each dialog graded against its event's
    verified expected outcome, as τ-bench grades a task. A dialog counts (is graded) when its event has an outcome,
    it has a grade, and the outcome speaks in it: it ran, and its simulated user was not cut short."""

    events: int = Field(description="Events built (status ok).")
    verified: int = Field(description="Of those, the events with a verified expected outcome.")
    unverified: list[UnverifiedEvent] = Field(description="The others, each with why it has none.")
    pass_rate: Rate = Field(
        description="Graded dialogs with reward 1 (the world ended as the expected calls leave it, and every output "
        "was said), among the graded dialogs."
    )
    end_state: Rate = Field(description="Graded dialogs whose world ended as the expected calls leave it.")
    forbidden_made: int = Field(description="Graded dialogs in which the chatbot made a write the outcome forbids.")
    cut_short: int = Field(
        description="Dialogs on an event with an outcome whose simulated user could not go on, or never spoke: not "
        "counted."
    )
    errors: int = Field(description="Dialogs on an event with an outcome that failed to run: not counted.")
    progress: float | None = Field(
        description="Mean over the graded dialogs of the share of expected calls made, in order, before the first "
        "wrong write (None when none was graded)."
    )
    calls: CallScore = Field(description="Over every graded dialog.")
    tools: dict[str, CallScore] = Field(description="Per tool, by name.")
    flows: list[OutcomeGroup] = Field(description="Per flow: the graded dialogs that sampled one of its policies.")
    policies: list[OutcomeGroup] = Field(description="Per policy, in policy id order: the graded dialogs that "
                                         "sampled it (beside its pass rate in `policies`).")
    challenge_levels: list[LevelResult] = Field(
        description="The outcome pass rate of the graded dialogs at or above each challenge level."
    )
    pass_k: list[PassK] = Field(
        default_factory=list, description="With trials: pass^1..pass^K over the rewards of each event's graded trials."
    )
    judge_agreement: Share | None = Field(
        default=None, description="Of the policies the outcome ruled on and the judge tested in one dialog, how often "
        "the two gave the same verdict (None when they never both ruled)."
    )


class AssertionResult(BaseModel):
    """A rule (of the rules file, or an assertion compiled in the run): what it says, whether it was used, and in how
    many dialogs it ruled and found a breach."""

    id: str
    check: str = Field(default="", description="Its check's name: `rule <id>` or `compiled <id>`.")
    policy: str = Field(description="The policies it enforces, comma-separated.")
    kind: str
    rationale: str = Field(description="The policy's words it encodes.")
    text: str = Field(description="The rule in one line.")
    in_force: bool = Field(description="False: the run did not use it (see `discarded`).")
    discarded: str | None = Field(default=None, description="Why not: it fails its own examples, names what the "
                                  "domain lacks, or a person discarded it.")
    dialogs: int = Field(default=0, description="Dialogs with a verdict it ruled in, whose scenario sampled one of its "
                         "policies.")
    breached: int = Field(default=0, description="Of those, the dialogs in which it found a breach.")


class StepDeviation(BaseModel):
    """Where a dialog left its flow's procedure: a step missing, two steps in the wrong order, an extra step."""

    dialog: str
    kind: Literal["missing", "wrong_order", "extra"]
    step: str = Field(description="The step at fault, as `call <tool>` or `confirm` (the user's yes).")
    turn: int | None = Field(default=None, description="The transcript index where it shows.")
    detail: str = Field(description="What happened, in one line.")


class FlowOrder(BaseModel):
    """How the dialogs of one flow kept to its procedure (the steps a program can see: calls, handovers, yeses)."""

    id: str
    name: str
    steps: int = Field(description="Steps of its procedure.")
    dialogs: int = Field(description="Dialogs with a verdict whose scenario sampled a policy of the flow.")
    followed: Share = Field(description="Of those, the dialogs with no step missing, out of order or extra.")
    deviations: list[StepDeviation] = Field(default_factory=list)


class ProgramFigures(BaseModel):
    """What programs decide in this run: the policies whose verdict a program backs, the compiled assertions, and
    the dialogs read against their flows' procedures."""

    backed: Share = Field(description="Policies whose verdict some program backs, out of all policies.")
    sources: dict[str, int] = Field(description="Policies backed per kind: outcome, program.")
    assertions: list[AssertionResult] = Field(default_factory=list, description="The rules and compiled assertions.")
    flows: list[FlowOrder] = Field(default_factory=list, description="Per flow with a procedure.")


class RolloutGroup(BaseModel):
    """What the rollouts yielded on the events of one policy or flow."""

    id: str
    name: str
    events: int = Field(description="Events of the group searched (to their end, or until the budget ran out).")
    paths: int = Field(description="Paths that ended.")
    rewarded: int = Field(description="Of those, the positives: supervised examples.")
    pairs: int = Field(description="Preference pairs.")


class RolloutFigures(BaseModel):
    """What the rollouts (--rollouts) searched, found, and what they cost."""

    events: int = Field(description="Events searched (to their end, or until the budget ran out).")
    skipped: int = Field(description="Events with nothing to reward their paths by, or no world.")
    stopped: int = Field(description="Events whose search the budget stopped or kept from starting.")
    errors: int = Field(description="Events whose search failed.")
    paths: int = Field(description="Paths that ended.")
    rewarded: int = Field(description="Positive paths, which every verdict source passed (the outcome above its "
                          "floor, the programs, the judge, the user's audit): the supervised examples.")
    pairs: int = Field(description="Preference pairs: a positive path's turn and a sibling worse by the margin or "
                       "condemned by a verdict.")
    compared: int = Field(description="Searched events with a dialog of simulate graded too.")
    best_reward: float | None = Field(
        default=None, description="Over those events, the mean outcome reward of the search's best path.")
    plain_reward: float | None = Field(
        default=None, description="Over the same events, the mean outcome reward of simulate's dialog.")
    improved: int = Field(default=0, description="Of those events, those whose best path beat the dialog.")
    calls: int = Field(description="LLM calls the searches made (the cache's answers not counted).")
    cost_usd: float = Field(description="What they cost.")
    policies: list[RolloutGroup] = Field(default_factory=list, description="Per policy, in policy id order.")
    flows: list[RolloutGroup] = Field(default_factory=list, description="Per flow, in the catalogue's order.")


class AttackCell(BaseModel):
    """The red team's attacks on one rule with one strategy."""

    rule: str
    strategy: StrategyName
    attacks: int = Field(description="Attacks played to a result (breach, or their budget of turns and attempts).")
    success: Rate = Field(description="Attacks that broke the rule, among those.")
    first_breach: int | None = Field(default=None, description="The fewest attempts an attack took to break it.")
    winning: str | None = Field(
        default=None, description="The attack that broke it in the fewest attempts: its tree (`attacks/<id>.json`) "
        "holds the winning branch's transcript.")
    source: VerdictSource | None = Field(default=None, description="Who found that attack's breach.")
    unplayed: int = Field(default=0, description="Attacks with no result: stopped by the budget, failed, or skipped.")
    why: str = Field(default="", description="Why the first of those has none.")


class AttackGroup(BaseModel):
    """The red team's attacks on one rule, or with one strategy, whatever the other."""

    id: str = Field(description="The rule's id, or the strategy's name.")
    text: str = Field(default="", description="The rule's text, or what the strategy does.")
    success: Rate = Field(description="Attacks that broke a rule, among those played to a result.")
    attempts_to_breach: float | None = Field(
        default=None, description="Over the attacks that broke a rule, the mean attempts to the first breach.")


class RedTeamFigures(BaseModel):
    """What the red team (--red-team) attacked, how often each rule broke, and what it cost."""

    attacks: int = Field(description="Attacks played to a result.")
    success: Rate = Field(description="The attack success rate: attacks that broke their rule, among those.")
    stopped: int = Field(description="Attacks the budget stopped or kept from starting (a rerun resumes them).")
    skipped: int = Field(description="Attacks that could not be made: nothing to plant in, no event for the rule.")
    errors: int = Field(description="Attacks that failed (the chatbot, or the attacker, could not go on).")
    rules: list[AttackGroup] = Field(
        default_factory=list, description="Per rule, the easiest to break first (highest success rate, then fewest "
        "attempts to breach).")
    strategies: list[AttackGroup] = Field(default_factory=list, description="Per strategy, in the strategies' order.")
    cells: list[AttackCell] = Field(default_factory=list, description="Per rule and strategy, in the rules' order.")
    calls: int = Field(description="LLM calls the attacks made (the cache's answers not counted).")
    cost_usd: float = Field(description="What they cost.")


class ControlResult(BaseModel):
    """The chatbot's dialogs played one way, dual (the user acts on its side as the chatbot guides it) or solo
    (the chatbot has the user's tools itself)."""

    control: Literal["dual", "solo"]
    dialogs: int
    pass_rate: Rate = Field(description="Passed among those dialogs with a verdict.")
    outcome_pass_rate: Rate = Field(description="Reward 1 among those graded on their event's expected outcome.")
    company_calls: CallScore = Field(description="The graded dialogs' calls of the chatbot's own tools.")
    user_calls: CallScore = Field(
        description="The graded dialogs' calls of the user's tools: the user's, as guided (dual), or the chatbot's "
        "own (solo)."
    )
    tau_pass_rate: Rate | None = Field(
        default=None, description="Reward 1 among the dialogs of published tasks graded by τ-bench (None: none was).")


class DualControl(BaseModel):
    """Where the user has tools of its own: how the chatbot fared guiding the user (dual) and, when the run played
    it too, doing the user's part itself (solo); a gap says the chatbot reasons better than it guides."""

    results: list[ControlResult] = Field(description="dual first, then solo; only the ways the run played.")
    gap: float | None = Field(
        default=None, description="The solo pass rate minus the dual one, when both were played and graded (None "
        "otherwise): τ-bench's reward where both ways played published tasks, else the outcome pass rate."
    )
    gap_of: Literal["outcome", "tau"] = Field(default="outcome", description="Which pass rate the gap is of.")
    gap_low: float | None = Field(default=None, description="The low end of the gap's 95% interval (Newcombe's, the "
                                  "two ways taken as independent samples: wider than the pairs need).")
    gap_high: float | None = Field(default=None, description="The high end of the gap's 95% interval.")


class Report(BaseModel):
    """The report of a run (report.json): its core, and its sections.

    In report.json each section is a top-level key of its own (`outcomes`, `personas`, `trials`, …, null when the
    run has none of its figures), after the core's keys and before `dialogs`; in Python they are in `sections`, by
    key, as that JSON: read one through its section, `OUTCOMES.of(report)` (see `intellagent.reports.sections`).
    """

    name: str
    overall: Overall
    gate: Gate | None = Field(default=None, description="Set once the gate is evaluated (always, in report.json).")
    policies: list[PolicyResult] = Field(description="In policy id order.")
    categories: list[GroupResult]
    flows: list[GroupResult]
    challenge_levels: list[LevelResult]
    coverage: Coverage
    sections: dict[str, Any] = Field(
        default_factory=dict, description="Each section's figures by its key, as JSON (None: the run has none)."
    )
    dialogs: list[DialogResult]

    @model_validator(mode="before")
    @classmethod
    def _sections_from_their_keys(cls, data: Any) -> Any:
        """Gather the sections of a report.json (every key that is not the core's) into `sections`."""
        if not isinstance(data, dict) or "sections" in data:
            return data
        core = {key: value for key, value in data.items() if key in cls.model_fields}
        return {**core, "sections": {key: value for key, value in data.items() if key not in cls.model_fields}}

    @model_serializer(mode="wrap")
    def _sections_as_keys(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """Each section under a top-level key of its own, before the dialogs, which are the longest part."""
        data: dict[str, Any] = handler(self)
        sections, dialogs = data.pop("sections", {}), data.pop("dialogs", None)
        return {**data, **sections, **({} if dialogs is None else {"dialogs": dialogs})}
