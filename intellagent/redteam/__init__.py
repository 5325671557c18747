"""The red team (--red-team): adaptive attackers aimed at each rule, through the conversation and through the data.

After simulate, each rule of the policy is attacked on the events that put it to the test (`targets`), with each
strategy (`strategies`). Through the conversation, an attacker plays the user (`attacker`) and searches for the message
that breaks the rule, rolling a refused message back and trying another angle, the chatbot seeing only the branch kept
(`conversation_attack`); through the data, an instruction is planted in a record the chatbot reads and the event's own
user plays the dialog (`injection`, `intellagent.populate.planting`). Every attempt is played by the dialog player
(`simulate.player`), and an attack succeeds on the rule's own verdict: the event's expected outcome, a check, or the
judge (`verdict`). Each attack is recorded, within its rule's budget, and resumed on a rerun (`team`); the stage's
wiring is `graphs.redteam`, its figures the report's red-team section."""
