"""Rollouts (--rollouts): from evaluation to improvement.

After simulate, each graded event is searched as JOSH searches a dialog: a beam search over the chatbot's
turns with the simulated user, rewarded by the event's expected outcome (`search`), each candidate played by the
dialog player (`simulate.player`). Which events are searched, each event's search and how it is recorded is in
`search_plan`; the rewarded paths become training data in the formats trainers read (`training_data`), written to the
run folder by `export`. The stage's wiring is `graphs.rollouts`.
"""
