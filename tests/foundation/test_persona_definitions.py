"""Personas: the built-ins are data a user reads, a user adds their own in YAML, and a mistake is one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from intellagent.artifacts import Persona
from intellagent.cli import main
from intellagent.config import apply_overrides, load_config
from intellagent.errors import UsageError
from intellagent.persona_files import BUILTIN_FOLDER, DEFAULT_MIX, builtin_personas

MINIMAL = """\
environment:
  policy: policy.md
  schema: intellagent.db_schemas.airline.schema
  tools: intellagent.db_schemas.airline.tools
"""

OWN = """\
simulate:
  personas:
    haggler:
      description: Bargains over every price and asks for a discount.
      instructions: You think every price is too high; ask for a discount before you agree to anything.
      adversarial: true
      challenge: 2
      attacks: [payment]
      moves:
        - turn: 2
          say: "Can you knock something off the price?"
  persona_mix: {cooperative: 1, haggler: 1}
"""

DOMAIN_WORDS = ("airline", "flight", "reservation", "baggage", "passenger", "cabin", "membership", "order", "parcel")


def write(tmp_path: Path, text: str) -> Path:
    (tmp_path / "policy.md").write_text("# Policy\n")
    path = tmp_path / "run.yml"
    path.write_text(MINIMAL + text)
    return path


def test_every_persona_the_issue_names_is_built_in() -> None:
    assert set(builtin_personas()) == {"cooperative", "impatient", "vague", "talkative", "other_language", "pressure",
                                       "false_claim", "authority", "exception_seeking", "injection", "escalation"}


def test_the_adversarial_built_ins_say_which_rules_they_attack_and_raise_the_challenge() -> None:
    adversarial = [persona for persona in builtin_personas().values() if persona.adversarial]

    assert len(adversarial) == 6
    assert all(persona.attacks and persona.challenge >= 2 and persona.situation for persona in adversarial)
    assert builtin_personas()["cooperative"].challenge == 0 and not builtin_personas()["cooperative"].attacks


def test_the_built_ins_speak_of_no_example_domain() -> None:
    for path in BUILTIN_FOLDER.glob("*.yml"):
        text = path.read_text().lower()
        assert not [word for word in DOMAIN_WORDS if word in text], path.name


def test_the_default_mix_is_mostly_cooperative_and_names_built_ins_only() -> None:
    assert DEFAULT_MIX["cooperative"] >= sum(DEFAULT_MIX.values()) / 2
    assert set(DEFAULT_MIX) <= set(builtin_personas())


def test_a_persona_defined_in_the_config_joins_the_mix(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, OWN))

    mixed = {persona.name: (persona, weight) for persona, weight in config.simulate.weighted_personas()}
    assert set(mixed) == {"cooperative", "haggler"}
    haggler = mixed["haggler"][0]
    assert haggler.attacks == ["payment"] and haggler.moves[0].say == "Can you knock something off the price?"


def test_personas_may_come_from_a_yaml_file_the_config_names(tmp_path: Path) -> None:
    own = OWN.split("  personas:\n", 1)[1].split("  persona_mix:", 1)[0]
    (tmp_path / "people.yml").write_text("\n".join(line.removeprefix("    ") for line in own.splitlines()))

    config = load_config(write(tmp_path, "simulate:\n  personas: people.yml\n  persona_mix: {haggler: 1}\n"))

    assert [persona.name for persona, _ in config.simulate.weighted_personas()] == ["haggler"]


def test_a_persona_of_a_built_in_s_name_replaces_it(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, "simulate:\n  personas:\n    cooperative:\n      description: Polite.\n"
                                         "      instructions: Be very polite.\n"))

    assert config.simulate.persona_library()["cooperative"].instructions == "Be very polite."


def test_personas_survive_a_command_line_override(tmp_path: Path) -> None:
    config = apply_overrides(load_config(write(tmp_path, OWN)), samples=5)

    assert "haggler" in config.simulate.persona_library()


@pytest.mark.parametrize(("text", "expected"), [
    ("simulate:\n  persona_mix: {cooperative: 1, bully: 2}\n", "unknown persona 'bully'"),
    ("simulate:\n  persona_mix: {cooperative: 0}\n", "at least one persona a weight above 0"),
    ("simulate:\n  personas: nowhere.yml\n", "nowhere.yml not found"),
    ("simulate:\n  personas:\n    shy:\n      description: Quiet.\n", "persona shy: instructions: Field required"),
    ("simulate:\n  personas:\n    sly:\n      description: x\n      instructions: y\n      moves:\n"
     "        - {turn: 1, say: '{claim}'}\n", "set `claims: true`"),
    ("simulate:\n  personas:\n    odd:\n      description: x\n      instructions: y\n      moves:\n"
     "        - {turn: 1, say: hi, cue: '(unclosed'}\n", "is not a regular expression"),
], ids=["unknown-name", "no-weight", "missing-file", "missing-field", "claim-without-claims", "bad-cue"])
def test_a_persona_mistake_is_one_line_naming_the_key(tmp_path: Path, text: str, expected: str) -> None:
    with pytest.raises(UsageError) as raised:
        load_config(write(tmp_path, text))

    message = str(raised.value)
    assert expected in message and "`simulate." in message and "run.yml" in message and "\n" not in message


def test_an_unknown_persona_stops_the_command_line_with_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    config = write(tmp_path, "simulate:\n  persona_mix: {bully: 1}\n")

    assert main(["--config", str(config), "--output", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err
    assert "unknown persona 'bully'" in err and err.count("\n") == 1


def test_a_persona_given_as_an_object_keeps_the_name_it_is_listed_under() -> None:
    persona = Persona(name="anyone", description="d", instructions="i")

    config = load_config({"environment": {"policy": str(Path(__file__)), "schema": "s", "tools": "t"},
                          "simulate": {"personas": {"someone": persona}, "persona_mix": {"someone": 1}}})

    assert config.simulate.persona_library()["someone"].name == "someone"


def test_a_persona_minimum_is_set_from_the_api_and_checked_like_any_rate(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, OWN))

    assert apply_overrides(config, min_persona={"adversarial": 0.8}).report.min_persona == {"adversarial": 0.8}
    with pytest.raises(UsageError, match=r"report\.min_persona\.haggler"):
        apply_overrides(config, min_persona={"haggler": 1.5})
