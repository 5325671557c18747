"""The rules file: YAML read into typed rules (one line says what is wrong with a file that is not), and written."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from intellagent.artifacts import RulesFile
from intellagent.errors import UsageError
from intellagent.yaml_files import yaml_mapping

HEADER = """\
# Rules of the {domain} domain, as reviewed code: each cites the policy passage it encodes, rules on its
# scope's tools, and carries dialogs it must pass (keeps) and fail (breaks). `intellagent rules test`
# checks them; the README's "Rules as code" documents the language.
"""


def read_rules(path: Path) -> RulesFile:
    """The rules of a rules file.

    Raises:
        UsageError: the file is missing, is not YAML, or a rule does not fit the language (which rule, and why).
    """
    if not path.is_file():
        raise UsageError(f"environment.rules: file {path} not found; write it, or run `intellagent rules compile` "
                         "to propose one")
    data = yaml_mapping(path, key="environment.rules", holds="`rules:` list")
    try:
        return RulesFile.model_validate(data)
    except ValidationError as error:
        raise UsageError(f"environment.rules: {path}: {_where(error, data)}") from None


def _where(error: ValidationError, data: dict[str, Any]) -> str:
    """The first problem, named by the rule it is in."""
    first = error.errors()[0]
    place = list(first["loc"])
    said = first["msg"]
    if len(place) >= 2 and place[0] == "rules" and isinstance(place[1], int):
        rules = data.get("rules") or []
        raw = rules[place[1]] if place[1] < len(rules) else {}
        named = raw.get("id", f"number {place[1] + 1}") if isinstance(raw, dict) else f"number {place[1] + 1}"
        inside = ".".join(str(part) for part in place[3:] if not str(part).endswith("Rule"))
        return f"rule {named}: {inside + ': ' if inside else ''}{said}"
    return f"{'.'.join(str(part) for part in place)}: {said}"


FIRST = ("id", "kind", "cite", "scope")
LAST = ("examples", "discarded")


def rules_text(rules: RulesFile, *, domain: str) -> str:
    """A rules file's text: a header, then its rules as YAML, each with its id, kind, citation and scope first and
    its examples last, defaults left out."""
    written = []
    for rule in rules.rules:
        fields = {"kind": rule.kind, **rule.model_dump(mode="json", exclude_defaults=True)}
        order = [*FIRST, *(name for name in fields if name not in FIRST + LAST), *LAST]
        written.append({name: fields[name] for name in order if name in fields})
    return HEADER.format(domain=domain) + yaml.safe_dump({"rules": written}, sort_keys=False, allow_unicode=True,
                                                         width=110)
