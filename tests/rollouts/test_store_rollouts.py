"""Rollouts on the store, a domain of JSON columns, ids of digits and rows whose references agree: a careful
candidate cancels a pending order of a customer found by e-mail; and a whole run of the careless double."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import BaseModel

import intellagent
from intellagent.artifacts import KtoExample, PreferencePair, SftExample
from intellagent.artifacts.training import OpenAiSftExample
from intellagent.llm import ScriptedLLM
from intellagent.llm.careless import careless_answers
from intellagent.reports.sections.rollout_figures import ROLLOUTS as ROLLOUT_FIGURES
from intellagent.rollouts.positives import positives
from intellagent.run_folder import RunFolder
from tests.describe.conftest import script_document
from tests.pipeline.test_store_run import RULES
from tests.rollouts.domain_rollouts import ROLLOUTS, store_event
from tests.rollouts.shop_rollouts import lines, records, roll_out, tree
from tests.rollouts.trainer_files import card_counts, file_counts
from tests.rollouts.training_records import labelled_turns, misplaced, positive_paths, preferences, supervised, unpaired
from tests.store import config


def test_on_the_store_the_beam_keeps_the_path_that_cancels_the_order(store_rolled_out: Path) -> None:
    searched = tree(store_rolled_out)

    assert [turn.id for turn in positives(searched)] == ["0.1.1"]
    assert records(store_rolled_out)[0].status == "ok"


def test_on_the_store_the_sft_example_makes_the_expected_calls_with_their_results(store_rolled_out: Path) -> None:
    (example,) = [SftExample.model_validate(line) for line in lines(store_rolled_out, "sft")]

    called = [call.function.name for message in example.messages for call in message.tool_calls or []]
    results = [message.content for message in example.messages if message.role == "tool"]
    assert called == ["find_customer", "cancel_order"]
    assert results[1].endswith("cancelled") and results[0].startswith("{")


def test_on_the_store_the_preference_file_pairs_the_careful_turns_with_the_declining_ones(
        store_rolled_out: Path) -> None:
    pairs = [PreferencePair.model_validate(line) for line in lines(store_rolled_out, "preferences")]

    assert [(pair.metadata.path, pair.metadata.rejected) for pair in pairs] == [("0.1", "0.2"), ("0.1.1", "0.1.2")]


@pytest.fixture(scope="module")
def careless_search(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp_path = tmp_path_factory.mktemp("careless-search")
    cfg = config(tmp_path, rollouts=ROLLOUTS)
    folder, _, _ = store_event(tmp_path, cfg)
    roll_out(cfg, folder, ScriptedLLM().on(reply=careless_answers(seed=3)), stages=("simulate", "rollouts"))
    return folder


def test_the_careless_double_searches_the_event_to_an_honest_record(careless_search: Path) -> None:
    (record,) = records(careless_search)
    searched = tree(careless_search)

    assert record.status == "ok" and record.paths == len(searched.ended()) > 0
    assert record.rewarded == len(positives(searched)) <= record.paths
    assert all(0.0 <= turn.reward <= 1.0 for turn in searched.turns)


@pytest.mark.parametrize(("name", "model"), [("sft", SftExample), ("preferences", PreferencePair),
                                             ("kto", KtoExample), ("openai-sft", OpenAiSftExample)])
def test_the_careless_doubles_training_files_are_valid_or_empty(careless_search: Path, name: str,
                                                                 model: type[BaseModel]) -> None:
    for line in lines(careless_search, name):
        model.model_validate(line)


def test_the_careless_doubles_data_card_counts_what_its_files_and_its_search_hold(careless_search: Path) -> None:
    card = (careless_search / "training" / "README.md").read_text()
    (record,) = records(careless_search)

    assert card_counts(careless_search) == file_counts(careless_search)
    assert f"{record.paths} paths ended, {record.rewarded} of them positives" in card


@pytest.mark.parametrize("search", ["store_rolled_out", "careless_search"])
def test_the_training_files_hold_a_supervised_example_for_each_positive_path_and_nothing_else(
        search: str, request: pytest.FixtureRequest) -> None:
    folder: Path = request.getfixturevalue(search)

    examples = supervised(folder)

    assert [(example.metadata.event, example.metadata.path) for example in examples] == positive_paths([tree(folder)])


@pytest.mark.parametrize("search", ["store_rolled_out", "careless_search"])
def test_every_preference_pair_sets_a_turn_on_a_positive_path_against_a_sibling_off_every_one(
        search: str, request: pytest.FixtureRequest) -> None:
    folder: Path = request.getfixturevalue(search)

    pairs = preferences(folder)

    assert misplaced(pairs, [tree(folder)]) == []


@pytest.mark.parametrize("search", ["store_rolled_out", "careless_search"])
def test_the_kto_file_holds_only_the_turns_of_the_pairs_the_chosen_true_the_rejected_false(
        search: str, request: pytest.FixtureRequest) -> None:
    folder: Path = request.getfixturevalue(search)

    examples = unpaired(folder)

    assert {(example.metadata.event, example.metadata.path, example.label) for example in examples} <= set(
        labelled_turns(preferences(folder)))


@pytest.fixture(scope="module")
def careless_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("careless-rollouts")
    cfg = config(folder, samples=3, describe={"challenge_range": [3, 6], "graph_weights": "flows"},
                 rollouts={"enabled": True, "beam": 2, "branch": 2, "max_turns": 2})
    script = script_document(ScriptedLLM(), flows=RULES).on(reply=careless_answers(seed=5))
    report = intellagent.evaluate(cfg, output=folder / "run", script=script)
    records = RunFolder(folder / "run").rollouts.load()
    figures = ROLLOUT_FIGURES.of(report)
    assert figures is not None and figures.skipped == sum(r.status == "skipped" for r in records) > 0
    return folder / "run"


def test_a_whole_careless_run_records_every_event_it_could_not_search_as_skipped(careless_run: Path) -> None:
    folder = RunFolder(careless_run)
    events = {event.id: event for event in folder.events.load() if event.status == "ok"}

    assert folder.run_info.require().status in ("done", "gate_failed")
    assert sorted(record.id for record in folder.rollouts.load()) == sorted(events)
    for record in folder.rollouts.load():
        assert record.status == ("skipped" if events[record.id].expected is None else "ok"), record
    assert all((careless_run / "training" / f"{name}.jsonl").is_file() for name in ("sft", "preferences", "kto"))
