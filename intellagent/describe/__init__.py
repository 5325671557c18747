"""The describe stage's logic: policies from a document (`extraction`, checked by `evidence`), the checks
they are enforced by (`check_map`), the policy graph, and the scenarios: where they come from
(`source`), sampled policy sets (`sampling`) and the answers that write them (`scenario_writing`)."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from intellagent.artifacts import PolicyCatalog, Scenario


@dataclass
class Described:
    """What the describe stage made: the policies, their graph and the scenarios."""

    catalog: PolicyCatalog
    graph: nx.Graph
    scenarios: list[Scenario]
