"""A flow's procedure as answered is made a valid canonical graph, whatever the model said: steps with no tool
and orders naming no step are left out, a cycle is broken, and every change is noted."""

from __future__ import annotations

import random

import networkx as nx
import pytest

from intellagent.config import Config
from intellagent.describe.procedure_reading import canonical_procedure, procedure_schema
from intellagent.describe.vocabulary import Vocabulary
from intellagent.environment import load_environment
from intellagent.llm.careless import draw

LOOKUP = {"kind": "call", "tool": "get_user_details"}
ASK = {"kind": "ask", "text": "the user id"}
YES = {"kind": "confirm", "text": "the cancellation"}
CANCEL = {"kind": "call", "tool": "cancel_reservation"}


@pytest.fixture
def vocabulary(scripted_config: Config) -> Vocabulary:
    """The airline's tools, which steps may call."""
    return Vocabulary.of(load_environment(scripted_config.environment))


def read(vocabulary: Vocabulary, steps: list[dict], edges: list[tuple[int, int]] | list[tuple[int, int, str]]):
    answer = {"steps": steps, "edges": [{"before": e[0], "after": e[1], "condition": e[2] if len(e) > 2 else ""}
                                        for e in edges]}
    return canonical_procedure(answer, vocabulary, flow="F1", policies={"P01"})


def test_a_cycle_is_broken_by_leaving_out_the_order_given_last(vocabulary) -> None:
    graph, notes = read(vocabulary, [ASK, LOOKUP, CANCEL], [(1, 2), (2, 3), (3, 1)])
    assert [(e.before, e.after) for e in graph.edges] == [("S1", "S2"), ("S2", "S3")]
    assert notes == ["F1: the order 3 → 1 closed a cycle; left out"]


def test_orders_naming_no_step_or_a_step_itself_are_left_out_and_noted(vocabulary) -> None:
    graph, notes = read(vocabulary, [ASK, CANCEL], [(1, 2), (2, 2), (1, 9)])
    assert [(e.before, e.after) for e in graph.edges] == [("S1", "S2")]
    assert notes == ["F1: the order 2 → 2 names no pair of steps; left out",
                     "F1: the order 1 → 9 names no pair of steps; left out"]


def test_a_call_with_no_tool_is_left_out_and_a_step_of_another_kind_names_none(vocabulary) -> None:
    graph, notes = read(vocabulary, [{"kind": "call"}, {**ASK, "tool": "cancel_reservation"}], [(1, 2)])
    assert [(s.kind, s.tool) for s in graph.steps] == [("ask", None)]
    assert notes[0] == "F1: a call step names no tool; left out"


def test_an_order_implied_by_others_is_dropped_unless_it_states_a_condition(vocabulary) -> None:
    plain, _ = read(vocabulary, [ASK, LOOKUP, CANCEL], [(1, 2), (2, 3), (1, 3)])
    stated, _ = read(vocabulary, [ASK, LOOKUP, CANCEL], [(1, 2), (2, 3), (1, 3, "the user asked")])
    assert len(plain.edges) == 2 and len(stated.edges) == 3


def test_the_steps_are_numbered_by_content_not_by_the_answers_order(vocabulary) -> None:
    one, _ = read(vocabulary, [ASK, LOOKUP, YES, CANCEL], [(1, 2), (2, 4), (3, 4)])
    other, _ = read(vocabulary, [CANCEL, YES, LOOKUP, ASK], [(4, 3), (3, 1), (2, 1)])
    assert one == other


def test_an_answer_with_no_step_gives_no_procedure(vocabulary) -> None:
    assert read(vocabulary, [], []) == (None, [])


def test_careless_answers_give_a_valid_acyclic_procedure_or_none(vocabulary) -> None:
    schema = procedure_schema(vocabulary, ["P01"])
    json_schema = schema.model_json_schema()
    for seed in range(60):
        answer = schema.model_validate(draw(json_schema, random.Random(seed), definitions=json_schema["$defs"]))
        graph, _ = canonical_procedure(answer.model_dump(mode="json"), vocabulary, flow="F1", policies={"P01"})
        if graph is None:
            continue
        ids = [step.id for step in graph.steps]
        assert ids == [f"S{n}" for n in range(1, len(ids) + 1)]
        assert all(ids.index(e.before) < ids.index(e.after) for e in graph.edges)  # every order forward: acyclic
        assert nx.is_directed_acyclic_graph(nx.DiGraph([(e.before, e.after) for e in graph.edges]))
        assert all((step.tool in vocabulary.tools) == (step.kind in ("call", "handoff")) for step in graph.steps)
