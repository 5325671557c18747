"""Every event a gradable task: what a chatbot that keeps every sampled rule does in it, verified by running
it, and every dialog graded on it.

`answer` holds the schemas a model answers in, `proposal` the proposal and its repairs, `draft` an entitled
change drafted from the event's rows, `verification` the
runs in a copy of the event's world (with `rehearsal`, the conversation the domain's checks read), and
`expected` the outcome made final and stored; populate's event graph wires them. `grading` grades a dialog
against its event's outcome, and `facts` says what the simulated user needs to know to get there; both
serve every mode, a published task's gold actions making an outcome of the same kind (`replayed_outcome`).
"""

from intellagent.outcomes.draft import WORLD_DRAWS, carried_over, drafted, drawable, is_drafted, redrafted
from intellagent.outcomes.expected import replayed_outcome, with_outcome
from intellagent.outcomes.proposal import Proposal, ProposedCall, mended, proposed
from intellagent.outcomes.verification import Failure, Run, Verdict, verified

__all__ = [
    "WORLD_DRAWS",
    "Failure",
    "Proposal",
    "ProposedCall",
    "Run",
    "Verdict",
    "carried_over",
    "drafted",
    "drawable",
    "is_drafted",
    "mended",
    "proposed",
    "redrafted",
    "replayed_outcome",
    "verified",
    "with_outcome",
]
