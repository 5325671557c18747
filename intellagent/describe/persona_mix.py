"""Who each scenario's user is: the configured mix of personas dealt over the sampling plan, each persona
that attacks rules on a scenario that samples one of them.

The mix is dealt as one seat per slot by smooth weighted round-robin: every persona's credit grows by its
weight at each seat, the seat goes to the persona with the most credit, which pays the total weight for it.
So any number of slots holds each persona within one of its share, and ties are broken by an order of the
personas drawn from the seed. Then the seats of the personas that attack rules (`Persona.attacks`) are
matched to slots whose first candidate samples a rule of a category they attack: a maximum flow from
each such persona, as many units as it has seats, to the slots it may take, one unit each, over the slots
in a seeded order, so that as many of them as can find a rule to attack do. A seat left without one goes to
the fallback, the mix's heaviest persona that attacks nothing (cooperative when the mix has none); the
other slots take the remaining seats in order.

A slot's persona holds for its later candidates too, where they sample a rule it attacks; a candidate
that samples none is played by the fallback. The deal depends only on the plan, the catalog, the mix and
the seed, so a resumed run finds the same personas.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from fractions import Fraction

import networkx as nx

from intellagent.artifacts import Persona, PolicyCatalog
from intellagent.describe.sampling import Sample, Slot
from intellagent.persona_files import COOPERATIVE, builtin_personas

_SEATS, _SLOTS = 0, 1
"""The source and sink of the flow network that places the seats; a persona's node and a slot's follow them.

Every node is an integer: networkx's preflow-push keeps its levels in sets, whose order for strings (and tuples of
them) changes with each process's hash seed, so named nodes placed the same seats differently from run to run."""


def dealt(mix: list[tuple[Persona, float]], count: int, *, seed: int) -> list[Persona]:
    """`count` seats dealt over the weighted personas of `mix` by smooth weighted round-robin."""
    weights = [Fraction(str(weight)) for _, weight in mix]
    total = sum(weights)
    rank = list(range(len(mix)))
    random.Random(f"{seed}:personas").shuffle(rank)  # which persona goes first among equal credits
    credit = [Fraction(0)] * len(mix)
    seats = []
    for _ in range(count):
        credit = [have + weight for have, weight in zip(credit, weights, strict=True)]
        best = max(range(len(mix)), key=lambda i: (credit[i], -rank[i]))
        credit[best] -= total
        seats.append(mix[best][0])
    return seats


def fallback(mix: list[tuple[Persona, float]]) -> Persona:
    """The persona of a scenario with no rule its dealt persona attacks: the mix's heaviest that attacks
    nothing (the first of equal weights), or the built-in cooperative user."""
    calm = [(persona, weight) for persona, weight in mix if not persona.attacks]
    if not calm:
        return builtin_personas()[COOPERATIVE]
    return max(calm, key=lambda pair: pair[1])[0]


def attacks(persona: Persona, sample: Sample, catalog: PolicyCatalog) -> bool:
    """Whether `sample` holds a rule `persona` attacks (any sample, for a persona that attacks nothing)."""
    return not persona.attacks or any(catalog.policy(p).category in persona.attacks for p in sample.policies)


def with_personas(slots: list[Slot], catalog: PolicyCatalog, mix: list[tuple[Persona, float]], *,
                  seed: int) -> tuple[list[Slot], list[str]]:
    """The slots with the persona of each of their candidates, and a note per persona whose seats did not all find
    a rule to attack (a plan of thousands of scenarios would otherwise warn thousands of times).

    Args:
        slots: the sampling plan.
        catalog: the policies, whose categories the personas attack.
        mix: the configured personas with their weights (`SimulateConfig.weighted_personas`).
        seed: the run's seed.
    """
    seats = dealt(mix, len(slots), seed=seed)
    spare = fallback(mix)
    placed = _matched(seats, slots, catalog, seed=seed)
    left = Counter(seat.name for index, seat in enumerate(seats) if seat.attacks and index not in placed)
    attacked = {seat.name: seat.attacks for seat in seats}
    notes = [f"{name} attacks rules of {', '.join(attacked[name])}, which no scenario left samples: {spare.name} "
             f"plays it in {count} {'scenario' if count == 1 else 'scenarios'}" for name, count in left.items()]
    calm = iter([seat if not seat.attacks else spare for index, seat in enumerate(seats) if index not in placed])
    taken = {slot: index for index, slot in placed.items()}
    personas = [seats[taken[number]] if number in taken else next(calm) for number in range(len(slots))]
    return [replace(slot, personas=tuple(persona.name if attacks(persona, candidate, catalog) else spare.name
                                         for candidate in slot.candidates))
            for slot, persona in zip(slots, personas, strict=True)], notes


def _matched(seats: list[Persona], slots: list[Slot], catalog: PolicyCatalog, *, seed: int) -> dict[int, int]:
    """Seat index → slot index, for as many seats of personas that attack rules as can get a slot whose first
    candidate samples such a rule.

    The seats of one persona are alike, so the flow network has a node per persona, whose capacity is its
    seats, rather than one per seat: it grows with personas × slots, not seats × slots, which a run of
    thousands of scenarios could not afford.
    """
    held: dict[str, list[int]] = {}  # persona name → its seats
    for index, seat in enumerate(seats):
        if seat.attacks:
            held.setdefault(seat.name, []).append(index)
    if not held:
        return {}
    order = list(range(len(slots)))
    random.Random(f"{seed}:persona-slots").shuffle(order)
    first_slot = _SLOTS + 1 + len(held)  # the personas' nodes come between the sink and the slots'
    network = nx.DiGraph()
    for node, indices in enumerate(held.values(), start=_SLOTS + 1):
        persona = seats[indices[0]]
        network.add_edge(_SEATS, node, capacity=len(indices))
        network.add_edges_from(((node, first_slot + number) for number in order
                                if slots[number].candidates and attacks(persona, slots[number].candidates[0], catalog)),
                               capacity=1)
    network.add_edges_from(((first_slot + number, _SLOTS) for number in order), capacity=1)
    _, flow = nx.maximum_flow(network, _SEATS, _SLOTS)
    placed: dict[int, int] = {}
    for node, indices in enumerate(held.values(), start=_SLOTS + 1):
        taken = [slot - first_slot for slot, units in flow[node].items() if units]
        placed.update(zip(indices, taken, strict=False))  # a persona with fewer slots than seats leaves its last
    return placed
