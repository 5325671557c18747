"""Domain-agnostic parts of the populate stage: from a symbolic plan to valid rows in an event's database.

`background` builds and checks the world every event starts from; `event` holds the steps of one
event, which the event graph (`graphs.populate`) wires together. `tables` reads the schema;
`row_models` builds the answer schemas; `plan` and `symbols` hold the symbolic plan and its values;
`references`, `shapes` and `faker_fill` complete the rows; `rows` assembles them; `insert` validates
and inserts them, in an attempt on the `scratch` copy of the background world; `final` makes the
scenario concrete.
"""

from intellagent.populate.background_world import (
    BackgroundWorld,
    describe_counts,
    describe_samples,
    describe_tables,
    example_names,
)
from intellagent.populate.final import final_texts, user_rows
from intellagent.populate.insert import Rejection, describe_rejected, insert_rows
from intellagent.populate.plan import Constraints, Plan, PlannedRow
from intellagent.populate.row_models import ValuesSchema, constraints_model, plan_model
from intellagent.populate.rows import AssembledRow, Assembly, Assignment, assemble, draw_anew, fall_back, loosen
from intellagent.populate.scratch import ScratchWorld
from intellagent.populate.symbols import Symbol, SymbolTable
from intellagent.populate.tables import Tables

__all__ = [
    "AssembledRow",
    "Assembly",
    "Assignment",
    "BackgroundWorld",
    "Constraints",
    "Plan",
    "PlannedRow",
    "Rejection",
    "ScratchWorld",
    "Symbol",
    "SymbolTable",
    "Tables",
    "ValuesSchema",
    "assemble",
    "constraints_model",
    "describe_counts",
    "describe_rejected",
    "describe_samples",
    "describe_tables",
    "draw_anew",
    "example_names",
    "fall_back",
    "final_texts",
    "insert_rows",
    "loosen",
    "plan_model",
    "user_rows",
]
