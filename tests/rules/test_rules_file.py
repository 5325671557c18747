"""A rules file checked before it is trusted: `intellagent rules test` holds every rule to the domain's names, to
the policy passage it cites and to its own examples, and refuses one that fails with a one-line reason."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from intellagent.cli import main
from intellagent.environment import Environment
from intellagent.errors import UsageError
from intellagent.rules.review import reviewed
from intellagent.rules.rules_file import read_rules
from tests.rules import RULES, section


def rules_file(folder: Path, *changes: tuple[str, str, object]) -> Path:
    """The retail rules file with fields of its rules changed: (rule id, dotted field, new value)."""
    data = yaml.safe_load(RULES.read_text(encoding="utf-8"))
    for rule_id, field, value in changes:
        target = next(rule for rule in data["rules"] if rule["id"] == rule_id)
        *path, last = field.split(".")
        for part in path:
            target = target[part] if not part.isdigit() else target[int(part)]
        target[last] = value
    written = folder / "rules.yml"
    written.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return written


def config(folder: Path, rules: Path) -> Path:
    written = folder / "returns.yml"
    written.write_text(yaml.safe_dump({"environment": section(rules=str(rules)), "llm": "scripted"}),
                       encoding="utf-8")
    return written


def refusals(path: Path, returns: Environment) -> dict[str, str]:
    found = reviewed(read_rules(path), returns, folder=path.parent)
    return {refused.id: refused.reason for refused in found.refused}


def test_rules_test_prints_each_rule_in_force_and_exits_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    code = main(["rules", "test", "--config", str(config(tmp_path, RULES))])

    assert code == 0
    assert "4 rules in force, 0 refused" in capsys.readouterr().out


def test_a_rule_that_fails_its_own_examples_is_refused_with_one_line_and_exit_1(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = rules_file(tmp_path, ("exchange-for-a-different-item", "any_of.0.op", "eq"))

    code = main(["rules", "test", "--config", str(config(tmp_path, path))])

    refused = [line for line in capsys.readouterr().out.splitlines() if line.startswith("refused")]
    assert code == 1
    assert refused == ["refused  exchange-for-a-different-item: it breaks its keeps example 1 (the blue shoe for the "
                       "black one): exchange_item was called, allowed only when variant_id eq "
                       "store_order_lines.variant_id where line_id = line_id: variant_id is '4000000002', "
                       "store_order_lines.variant_id where line_id = line_id is '4000000001'; it finds nothing wrong "
                       "in its breaks example 1 (the shoe for the very same shoe)"]


def test_a_rule_with_no_example_it_breaks_is_refused(tmp_path: Path, returns: Environment) -> None:
    path = rules_file(tmp_path, ("yes-before-cancelling", "examples.breaks", []))

    assert refusals(path, returns) == {"yes-before-cancelling": "it has no example it breaks"}


def test_a_name_the_domain_lacks_is_refused(tmp_path: Path, returns: Environment) -> None:
    path = rules_file(tmp_path, ("refund-to-original-method", "any_of.0.right.column", "card"),
                      ("exchange-for-a-different-item", "tool", "swap_item"))

    assert refusals(path, returns) == {"refund-to-original-method": "card is not a column of store_payments",
                                       "exchange-for-a-different-item": "swap_item is not a tool of the domain"}


def test_a_citation_of_words_its_passage_does_not_hold_is_refused(tmp_path: Path, returns: Environment) -> None:
    path = rules_file(tmp_path, ("refund-to-original-method", "cite.words", "refunds go to a gift card"),
                      ("exchange-for-a-different-item", "cite.passage", "L99"))

    assert refusals(path, returns) == {
        "refund-to-original-method": 'its passage L19 does not hold the words it quotes ("refunds go to a gift card")',
        "exchange-for-a-different-item": "it cites L99, which is no passage of the policy document"}


def test_a_rule_a_person_discarded_is_refused_with_their_reason(tmp_path: Path, returns: Environment) -> None:
    path = rules_file(tmp_path, ("yes-before-cancelling", "discarded", "the policy asks no yes for a cancellation"))

    assert refusals(path, returns) == {"yes-before-cancelling": "discarded: the policy asks no yes for a cancellation"}


def test_a_rule_outside_the_language_is_a_one_line_error_naming_it(tmp_path: Path) -> None:
    path = rules_file(tmp_path, ("yes-before-cancelling", "kind", "politeness"))

    with pytest.raises(UsageError, match=r"rule yes-before-cancelling: .*'politeness'") as raised:
        read_rules(path)
    assert "\n" not in str(raised.value)


def test_a_missing_rules_file_is_a_usage_error_that_says_how_to_make_one(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["rules", "test", "--config", str(config(tmp_path, tmp_path / "none.yml"))])

    assert code == 2
    assert "run `intellagent rules compile` to propose one" in capsys.readouterr().err


def test_the_readme_s_example_rule_is_in_force_on_the_store_it_cites(tmp_path: Path, returns: Environment) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    example = readme.split("## Rules as code", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "rules.yml"
    path.write_text(example, encoding="utf-8")

    found = reviewed(read_rules(path), returns, folder=tmp_path)

    assert [rule.id for rule in found.held] == ["cancel-only-pending-orders"] and found.refused == []
