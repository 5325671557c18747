"""The artifacts a run writes, one typed model per file: the contract between the stages.

describe → policies.json (with the flows' procedures, the compiled assertions and the rules file's rules in
force), graph.json, scenarios.jsonl; populate → events.jsonl and events/<id>.delta.json; simulate →
dialogs.jsonl and dialogs/<id>.delta.json (and mutants.json when calibrating);
rollouts (--rollouts) → rollouts.jsonl, rollouts/<event>.json and training/*.jsonl; redteam (--red-team) →
attacks.jsonl and attacks/<id>.json;
report → analysis.jsonl, report.json, report.html, junit.xml. `intellagent.run_folder` names each file
once, with its model. The models stand on nothing else of the library: what they hold of the LLM
accounting (`usage`) and of τ-bench (`tau`) is defined here too.
"""

from intellagent.artifacts.adversary import AttackBrief, Planted, StrategyName
from intellagent.artifacts.analysis import Analysis, AnalysisStatus, Violation
from intellagent.artifacts.assertions import (
    Assertion,
    Body,
    Bound,
    BoundAssertion,
    Compare,
    Condition,
    Confirmation,
    ConfirmationAssertion,
    Disclosure,
    EarlierCall,
    Forbidden,
    ForbiddenAssertion,
    Order,
    OrderAssertion,
    Precondition,
    PreconditionAssertion,
    SameEntity,
    Term,
)
from intellagent.artifacts.attacks import Attack, AttackAttempt, AttackStatus, AttackTree
from intellagent.artifacts.audit import FAULT_LABELS, UserAudit, UserFault, UserFaultKind
from intellagent.artifacts.dialogs import CritiqueExchange, Dialog, DialogRole, DialogStatus, Finding, Message, ToolCall
from intellagent.artifacts.events import Event
from intellagent.artifacts.mutants import MutantKind, MutantList, MutantRecord
from intellagent.artifacts.outcomes import ExpectedCall, ExpectedOutcome, ForbiddenCall, OutcomeFloor, OutcomeGrade
from intellagent.artifacts.personas import Claim, Move, Persona, PlayedMove
from intellagent.artifacts.policies import (
    CATEGORIES,
    CATEGORY_LABELS,
    Category,
    ChallengeLevels,
    Flow,
    Passage,
    Policy,
    PolicyCatalog,
)
from intellagent.artifacts.procedures import STEP_KINDS, SopEdge, SopGraph, SopStep, StepKind
from intellagent.artifacts.rollout_trees import Rollout, RolloutStatus, RolloutTree, RolloutTurn
from intellagent.artifacts.rules import Rule, RuleInForce, RulesFile
from intellagent.artifacts.run_info import FROZEN_STAGES, STAGES, RunInfo, RunStatus, StageInfo
from intellagent.artifacts.run_report import Report
from intellagent.artifacts.scenarios import Entitlement, Scenario
from intellagent.artifacts.tau import TauAction, TauGrade, TauTask
from intellagent.artifacts.training import KtoExample, PreferencePair, SftExample
from intellagent.artifacts.usage import Tally, UsageReport

__all__ = [
    "CATEGORIES",
    "CATEGORY_LABELS",
    "FAULT_LABELS",
    "FROZEN_STAGES",
    "STAGES",
    "STEP_KINDS",
    "Analysis",
    "AnalysisStatus",
    "Assertion",
    "Attack",
    "AttackAttempt",
    "AttackBrief",
    "AttackStatus",
    "AttackTree",
    "Body",
    "Bound",
    "BoundAssertion",
    "Category",
    "ChallengeLevels",
    "Claim",
    "Compare",
    "Condition",
    "Confirmation",
    "ConfirmationAssertion",
    "CritiqueExchange",
    "Dialog",
    "DialogRole",
    "DialogStatus",
    "Disclosure",
    "EarlierCall",
    "Entitlement",
    "Event",
    "ExpectedCall",
    "ExpectedOutcome",
    "Finding",
    "Flow",
    "Forbidden",
    "ForbiddenAssertion",
    "ForbiddenCall",
    "KtoExample",
    "Message",
    "Move",
    "MutantKind",
    "MutantList",
    "MutantRecord",
    "Order",
    "OrderAssertion",
    "OutcomeFloor",
    "OutcomeGrade",
    "Passage",
    "Persona",
    "Planted",
    "PlayedMove",
    "Policy",
    "PolicyCatalog",
    "Precondition",
    "PreconditionAssertion",
    "PreferencePair",
    "Report",
    "Rollout",
    "RolloutStatus",
    "RolloutTree",
    "RolloutTurn",
    "Rule",
    "RuleInForce",
    "RulesFile",
    "RunInfo",
    "RunStatus",
    "SameEntity",
    "Scenario",
    "SftExample",
    "SopEdge",
    "SopGraph",
    "SopStep",
    "StageInfo",
    "StepKind",
    "StrategyName",
    "Tally",
    "TauAction",
    "TauGrade",
    "TauTask",
    "Term",
    "ToolCall",
    "UsageReport",
    "UserAudit",
    "UserFault",
    "UserFaultKind",
    "Violation",
]
