"""Rollouts (--rollouts): from evaluation to improvement.

After simulate, each graded event is searched as JOSH searches a dialog: a beam search over the chatbot's
turns with the simulated user, rewarded by the event's expected outcome (`search`), each candidate played by the
dialog player (`simulate.player`). Which events are searched, each event's search and how it is recorded is in
`search_plan`. The paths every verdict source passes (`positives`) become training data in the formats trainers read
(`training_data`: conversations in the chat format of `chat`, pairs where a worse sibling parts from them in `pairs`),
written to the run folder with its data card by `export` (`data_card`). The stage's wiring is `graphs.rollouts`.
"""
