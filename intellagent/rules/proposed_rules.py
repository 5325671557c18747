"""Compiled assertions proposed as a rules file: each cited, scoped and given examples, written for review.

Describe's compiler answers in the five kinds a model can be asked for (`describe.assertion_compiler`). Each assertion
it keeps becomes a rule of a proposed rules file:

- its citation is the passage its policy comes from, quoting the longest run of the assertion's rationale
  that passage holds word for word (or the passage's opening words);
- its scope is the tools it rules on;
- its examples are made from the rule itself (`synthesis`): a dialog that keeps it and one that breaks it.

A proposed rule is reviewed as a rules file's is (`review`): one that fails its own examples, or whose names or
citation do not stand, is left out with a note, so a careless model never proposes a rule that fails itself.
The proposal is written beside the reviewed rules file, never over it (`rules.proposed.yml` beside
`rules.yml`), with a unified diff against it (`rules.proposed.diff`) that a person reads before copying any of
it over.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import TypeAdapter

from intellagent.artifacts import Assertion, PolicyCatalog, Rule, RulesFile
from intellagent.artifacts.rules import Citation, Examples
from intellagent.describe.name_checks import Names
from intellagent.describe.passages import passage_text, rule_passage
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import Environment
from intellagent.files import write_atomic
from intellagent.rules.citations import passage_id
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import rules_text
from intellagent.rules.synthesis import synthesized_examples

PROPOSED_SUFFIX = ".proposed.yml"
DIFF_SUFFIX = ".proposed.diff"
_RULE: TypeAdapter[Rule] = TypeAdapter(Rule)
OPENING_WORDS = 12
"""Words of its passage a rule quotes when its rationale shares no run of three words with it."""


@dataclass
class Proposal:
    """A proposed rules file as written: its rules, where, the diff against the reviewed file, and the rules left
    out."""

    rules: RulesFile
    proposed: Path
    diff: Path | None = None
    left_out: list[str] = field(default_factory=list)


def proposed_path(reviewed_file: Path) -> Path:
    """Where the proposal for a reviewed rules file is written: beside it (`rules.yml` → `rules.proposed.yml`)."""
    return reviewed_file.with_name(reviewed_file.stem + PROPOSED_SUFFIX)


def propose(assertions: list[Assertion], catalog: PolicyCatalog, environment: Environment, *, target: Path,
            reviewed_file: Path | None = None) -> Proposal:
    """Write the assertions that stand as rules to `target`, and, when `reviewed_file` exists, a diff against it
    beside the proposal; the reviewed file is never written."""
    names = Names(Vocabulary.of(environment))
    candidates = RulesFile(rules=[rule for assertion in assertions
                                  if (rule := _as_rule(assertion, catalog, environment.policy, names)) is not None])
    checked = reviewed(candidates, environment, folder=target.parent)
    rules = RulesFile(rules=checked.held)
    text = rules_text(rules, domain=environment.name)
    write_atomic(target, text)
    proposal = Proposal(rules=rules, proposed=target,
                        left_out=[f"{refused.id}: {refused.reason}" for refused in checked.refused])
    if reviewed_file is not None and reviewed_file.is_file():
        proposal.diff = target.with_name(target.name.removesuffix(PROPOSED_SUFFIX) + DIFF_SUFFIX)
        lines = difflib.unified_diff(reviewed_file.read_text(encoding="utf-8").splitlines(keepends=True),
                                     text.splitlines(keepends=True), fromfile=reviewed_file.name, tofile=target.name)
        write_atomic(proposal.diff, "".join(lines))
    return proposal


def _as_rule(assertion: Assertion, catalog: PolicyCatalog, document: str, names: Names) -> Rule | None:
    """The assertion as a rule of a rules file (None: its policy comes from no passage to cite); one whose names do
    not fit the domain gets no examples (and is refused for its names)."""
    span = rule_passage(document, catalog.policy(assertion.policy).text)
    if span is None:
        return None
    cite = Citation(passage=passage_id(span), words=quoted(assertion.rationale, passage_text(document, span)))
    fields = assertion.model_dump(exclude={"id", "policy", "rationale"})
    examples = Examples() if names.problems(assertion) else synthesized_examples(assertion)
    return _RULE.validate_python({**fields, "id": assertion.id, "cite": cite, "examples": examples})


def quoted(rationale: str, passage: str) -> str:
    """The longest run of the rationale's words the passage holds word for word (three at least), or the passage's
    opening words."""
    said, held = rationale.split(), passage.split()
    flat = [word.casefold().strip(".,;:!?*_`\"'()") for word in held]
    wanted = [word.casefold().strip(".,;:!?*_`\"'()") for word in said]
    match = difflib.SequenceMatcher(None, wanted, flat, autojunk=False).find_longest_match()
    if match.size >= 3:
        return " ".join(held[match.b:match.b + match.size]).strip(".,;:*_`\"'()")
    return " ".join(held[:OPENING_WORDS]).lstrip("-*+0123456789.) ").strip(".,;:*_`\"'()")
