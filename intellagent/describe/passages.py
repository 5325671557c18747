"""The passages of a policy document, and which rules come from which.

A passage is one of the document's blocks: a list item with its continuation lines, a paragraph, a
table row (a heading names a section and states no rule). Words are compared by their first `STEM`
letters, so that "confirm" and "confirmation" match, leaving out words too common in policy documents to
say where a rule comes from. A rule comes from the block that holds most of its words, if that block
holds `MIN_COVERAGE` of them (`rule_passage`): calibration takes that passage out of the document to
break the rule on purpose, and describe asks of every passage whether some policy came from it.

A passage is **covered** when it is some policy's source, or when some policy states `MIN_COVERAGE` of
its own words (a rule written out of two list items comes from one, and covers the other too). A
passage of fewer than `MIN_WORDS` such words (a table's row of numbers) says too little to be either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

STEM = 5
MIN_COVERAGE = 0.4
MIN_WORDS = 2

Span = tuple[int, int]
"""A block as a [start, end) range of the document's lines."""

# Words too common in policy documents to say which passage states a rule.
_COMMON = frozenset({"that", "this", "with", "from", "they", "their", "them", "will", "must", "when", "have",
                     "been", "only", "user", "users", "any", "the", "and", "for", "not", "are", "you", "your", "can"})
_WORD = re.compile(r"[a-z0-9$%]+")
# A line that starts a block of its own: a list item, a heading, a table row.
_BLOCK_START = re.compile(r"^\s*([-*+]\s|\d+[.)]\s|#{1,6}\s|\|)")
_TABLE_RULE = re.compile(r"^\s*\|[\s:|-]*\|\s*$")


def blocks(document: str) -> list[Span]:
    """The document's blocks as [start, end) line ranges: list items with their continuation lines,
    paragraphs, headings, table rows."""
    lines = document.splitlines()
    found: list[Span] = []
    start: int | None = None
    for number, line in enumerate([*lines, ""]):
        starts_block = not line.strip() or _BLOCK_START.match(line) is not None
        after_one_liner = start is not None and lines[start].lstrip().startswith(("#", "|"))
        if starts_block or after_one_liner:
            if start is not None:
                found.append((start, number))
            start = number if line.strip() else None
        elif start is None:
            start = number
    return found


def stems(text: str) -> set[str]:
    """The words of `text` that say where a rule comes from, each cut to its first `STEM` letters."""
    return {word[:STEM] for word in _WORD.findall(text.lower()) if len(word) > 2 and word not in _COMMON}


def rule_passage(document: str, rule: str) -> Span | None:
    """The block that states the rule: the one covering most of its words, if it covers `MIN_COVERAGE`."""
    wanted = stems(rule)
    if not wanted:
        return None
    lines = document.splitlines()
    scored = [(len(wanted & stems("\n".join(lines[a:b]))) / len(wanted), (a, b)) for a, b in blocks(document)]
    coverage, best = max(scored, default=(0.0, None), key=lambda item: item[0])
    return best if coverage >= MIN_COVERAGE else None


def passages(document: str) -> list[Span]:
    """The blocks that may state a rule: not headings, table rules or table headers, and of `MIN_WORDS` words."""
    lines = document.splitlines()
    found = []
    for start, end in blocks(document):
        first = lines[start].lstrip()
        header = first.startswith("|") and end < len(lines) and _TABLE_RULE.match(lines[end]) is not None
        if first.startswith("#") or header or len(stems("\n".join(lines[start:end]))) < MIN_WORDS:
            continue
        found.append((start, end))
    return found


def uncovered(document: str, rules: Iterable[str]) -> list[Span]:
    """The passages of `document` that none of `rules` covers, in document order."""
    texts = list(rules)
    sources = {rule_passage(document, rule) for rule in texts}
    worded = [stems(rule) for rule in texts]
    lines = document.splitlines()
    left = []
    for span in passages(document):
        if span in sources:
            continue
        own = stems("\n".join(lines[span[0]:span[1]]))
        if not any(len(own & words) >= MIN_COVERAGE * len(own) for words in worded):
            left.append(span)
    return left


def passage_text(document: str, span: Span) -> str:
    """The lines of a passage, as the document has them."""
    return "\n".join(document.splitlines()[span[0]:span[1]])
