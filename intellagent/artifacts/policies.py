"""policies.json: what the chatbot must do, decomposed from its policy document."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import BaseModel, Field

from intellagent.artifacts.assertions import Assertion
from intellagent.artifacts.procedures import SopGraph
from intellagent.artifacts.rules import RefusedRule, RuleInForce

Category = Literal[
    "authentication",
    "data_privacy",
    "legal_compliance",
    "payment",
    "tool_usage",
    "reasoning",
    "formatting",
    "knowledge_extraction",
    "user_consent",
    "escalation",
    "enforcement",
    "offensive_content",
    "sexual_content",
    "harassment",
    "fraud",
    "misinformation",
    "company_policy",
    "other",
]
CATEGORIES: tuple[str, ...] = get_args(Category)

CATEGORY_LABELS: dict[str, str] = {
    "authentication": "Authentication / access control",
    "data_privacy": "Data privacy / user data handling",
    "legal_compliance": "Legal / compliance",
    "payment": "Payment handling / financial",
    "tool_usage": "Tool usage / API calls",
    "reasoning": "Logical / numerical reasoning",
    "formatting": "Response formatting",
    "knowledge_extraction": "Knowledge extraction",
    "user_consent": "User consent / acknowledgment",
    "escalation": "Escalation / handoff",
    "enforcement": "Policy enforcement / restriction",
    "offensive_content": "Offensive / hate content",
    "sexual_content": "Sexual / NSFW content",
    "harassment": "Harassment / bullying",
    "fraud": "Fraud / malicious use",
    "misinformation": "Misinformation / disallowed content",
    "company_policy": "Company policy (none of the above)",
    "other": "Other",
}


class Flow(BaseModel):
    """A family of conversations the chatbot handles (book, modify, cancel, ...)."""

    id: str = Field(description="F1, F2, ...")
    name: str
    description: str = ""
    sop: SopGraph | None = Field(default=None, description="Its procedure: steps and their order (None: not read).")


class Policy(BaseModel):
    """One self-contained rule the chatbot must keep."""

    id: str = Field(description="P01, P02, ... (stable within a run)")
    text: str
    flows: list[str] = Field(description="Ids of the flows the rule applies to.")
    category: Category
    challenge: int = Field(ge=1, le=5, description="1 very straightforward … 5 highly intricate.")


class Passage(BaseModel):
    """A passage of the policy document: a list item, a paragraph or a table row."""

    first_line: int = Field(description="Its first line in the document, from 1.")
    last_line: int = Field(description="Its last line in the document.")
    text: str


class ChallengeLevels(BaseModel):
    """The challenge levels scenarios are sampled at: the levels of `describe.challenge_range` that some set
    of the policies reaches in total, or the nearest one when none does."""

    configured: tuple[int, int] = Field(description="describe.challenge_range as configured.")
    levels: list[int] = Field(description="The target levels the scenarios are drawn at, in balanced turns.")
    narrowed: str | None = Field(
        default=None, description="Why some configured levels are not drawn (no set of policies reaches them)."
    )


class PolicyCatalog(BaseModel):
    """The decomposition of a policy document: task, flows and policies."""

    task_description: str
    flows: list[Flow]
    policies: list[Policy]
    errors: list[str] = Field(default_factory=list, description="Flows whose extraction failed, with why.")
    corrected: list[str] = Field(
        default_factory=list,
        description="Categories and challenge scores the rules' own text contradicted, and what replaced them.",
    )
    checks: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Deterministic check → ids of the policies it enforces (a check left out enforces none).",
    )
    every_dialog: list[str] = Field(
        default_factory=list,
        description="Checks that rule on their policies in every dialog, not only where the scenario sampled them.",
    )
    passages: int | None = Field(
        default=None,
        description="How many passages of the policy document may state a rule (None: not counted, an older run).",
    )
    uncovered: list[Passage] = Field(
        default_factory=list,
        description="The passages no policy comes from, even after an extraction aimed at them: rules, if they "
        "state any, that the run does not test.",
    )
    challenge_levels: ChallengeLevels | None = Field(
        default=None, description="The levels the scenarios were sampled at (written when they are planned)."
    )
    assertions: list[Assertion] = Field(
        default_factory=list,
        description="What a program can decide of the policies, compiled into typed assertions (see "
        "`artifacts.assertions`); each runs as the check `compiled <id>`.",
    )

    rules: list[RuleInForce] = Field(
        default_factory=list,
        description="The domain's rules file's rules in force (see `artifacts.rules`), each with the policies it "
        "enforces; each runs as the check `rule <id>`.",
    )
    refused_rules: list[RefusedRule] = Field(
        default_factory=list, description="The rules of the rules file this run does not use, and why."
    )

    def listing(self, policy_ids: list[str] | None = None) -> str:
        """Policies (all, or the given ones), one per line as `id: text`, the way prompts cite them."""
        wanted = [p.id for p in self.policies] if policy_ids is None else policy_ids
        return "\n".join(f"{pid}: {self.policy(pid).text}" for pid in wanted)

    def policy(self, policy_id: str) -> Policy:
        """The policy with this id (KeyError if none)."""
        for policy in self.policies:
            if policy.id == policy_id:
                return policy
        raise KeyError(policy_id)
