"""Rollouts (--rollouts): from evaluation to improvement.

After simulate, each graded event is searched as JOSH searches a dialog: a beam search over the chatbot's
turns with the simulated user, rewarded by the event's expected outcome (`search`). Which events are searched
and how each search is recorded is in `events`; the rewarded paths become training data in the formats
trainers read (`training`). The stage's wiring is `graphs.rollouts`.
"""
