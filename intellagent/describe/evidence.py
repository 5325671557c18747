"""The extracted policies' categories and challenge scores, checked against evidence in their own text.

A small model classifies carelessly: it filed "ask the user to confirm before any change" under
authentication, and scored 15 of 19 rules at challenge 1. Both hurt every report (the category
chart, and the sampler, which combines policies by challenge), so two plain checks run on every
catalog, whatever the model:

- **Category.** A rule whose text asks for the user's explicit agreement is `user_consent`, one
  that hands the user to a person is `escalation`, and one that allows stating only what the tools
  returned (no outside knowledge, nothing made up) is `knowledge_extraction`. These cues are
  unambiguous in any domain; a rule that carries one of them and was filed elsewhere is refiled. No
  other category is second-guessed.
- **Challenge.** When the scores are degenerate (at least `MIN_POLICIES` rules, and one score given
  to more than `DEGENERATE_SHARE` of them), they carry no ranking, and every score is replaced by an
  estimate from the text: one point, plus one per distinct number and condition word it states (if,
  unless, only, within, at least, …), at most 5. A spread the model did give is kept as it is.

Every change is noted in the catalog's `corrected` list, so policies.json says what was not the
model's.
"""

from __future__ import annotations

import re
from collections import Counter

from intellagent.artifacts import Category, Policy

# The user's agreement asked for before acting, in the ways policies word it; "confirm the user's
# identity" is deliberately not one of them.
_CONSENT = re.compile(
    r"\bexplicit(ly)?\s+((user|customer)\s+)?(confirm|agree|consent|approv|yes)"
    r"|\b(user|customer)(['’]s)?\s+(explicit\s+)?(confirmation|consent|agreement|approval)"
    r"|\b(ask|wait)\w*\s+for\s+(an?\s+|the\s+|their\s+)?(explicit\s+)?(yes|confirmation|consent|approval)"
    r"|\bconsent\b|['\"]yes['\"]",
    re.IGNORECASE,
)
_HANDOFF = re.compile(
    r"\b(transfer\w*|hand\w*\s+(\w+\s+)?over|escalat\w*)\b.{0,40}\b(human|person|staff)", re.IGNORECASE
)

# Only what the tools or the user said may be stated: the rule the grounding checks decide.
_GROUNDING = re.compile(
    r"\boutside knowledge\b"
    r"|\b(do not|don't|never|must not|not)\s+(invent|make\s+(anything|things|something)?\s*up|fabricate|guess)"
    r"|\b(share|say|state|tell|mention|report)\w*\s+only\b.{0,60}\b(tools?|system|database)\s+"
    r"(returns?|provides?|shows?|gives?)\b",
    re.IGNORECASE,
)

CUES: tuple[tuple[Category, re.Pattern[str]], ...] = (
    ("user_consent", _CONSENT), ("escalation", _HANDOFF), ("knowledge_extraction", _GROUNDING),
)

MIN_POLICIES = 4
DEGENERATE_SHARE = 0.6

_CONDITION = re.compile(
    r"\b(if|unless|only|except|within|before|after|at least|at most|more than|less than|no more|up to|"
    r"per|each|either|both|whether|when)\b",
    re.IGNORECASE,
)
_NUMBER = re.compile(r"(?<!\w)\$?\d+(?:[.,]\d+)*%?")


def evidenced_category(text: str) -> Category | None:
    """The category a rule's own words call for, or None when they call for none in particular."""
    return next((category for category, cue in CUES if cue.search(text)), None)


def evidenced(policy: Policy, category: Category) -> bool:
    """Whether `policy` is of `category` on evidence: its own words carry the category's cue, or, for a
    category with no cue, the model filed it there."""
    cue = dict(CUES).get(category)
    return bool(cue.search(policy.text)) if cue else policy.category == category


def estimated_challenge(text: str) -> int:
    """1 to 5: one point, plus one per distinct number and condition word the rule states."""
    numbers = set(_NUMBER.findall(text))
    conditions = {word.lower() for word in _CONDITION.findall(text)}
    return min(5, 1 + len(numbers) + len(conditions))


def degenerate(scores: list[int]) -> bool:
    """Whether challenge scores rank nothing: enough of them, and most the same."""
    if len(scores) < MIN_POLICIES:
        return False
    (_, most), = Counter(scores).most_common(1)
    return most > DEGENERATE_SHARE * len(scores)


def checked_policies(policies: list[Policy]) -> tuple[list[Policy], list[str]]:
    """The policies with categories and challenge scores their text contradicts replaced, and a note
    per replacement."""
    notes: list[str] = []
    estimate = degenerate([policy.challenge for policy in policies])
    if estimate:
        notes.append(
            f"challenge: the model's scores were degenerate ({_spread(policies)}); estimated from each rule's "
            "numbers and conditions instead"
        )
    checked = []
    for policy in policies:
        update: dict[str, object] = {}
        category = evidenced_category(policy.text)
        if category and category != policy.category:
            update["category"] = category
            notes.append(f"{policy.id}: category {policy.category} → {category} (the rule's own words call for it)")
        if estimate:
            update["challenge"] = estimated_challenge(policy.text)
        checked.append(policy.model_copy(update=update) if update else policy)
    return checked, notes


def _spread(policies: list[Policy]) -> str:
    counts = Counter(policy.challenge for policy in policies)
    return ", ".join(f"{count}× {score}" for score, count in sorted(counts.items()))
