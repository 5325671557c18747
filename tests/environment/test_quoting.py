"""Evidence quotes a speaker's sentence the same way whoever said it: the chatbot's findings and its simulated
user's faults cite the sentence at fault, on one line, clipped with an ellipsis."""

from __future__ import annotations

from intellagent.artifacts import Dialog, Event, Message
from intellagent.checks import Trace
from intellagent.checks.builtin import announced_work_was_done
from intellagent.checks.sentences import QUOTED, first_sentence, quote, sentence_at
from intellagent.environment import Environment
from intellagent.simulate.user_faults import program_faults
from intellagent.simulate.users import USER_ENDED

LONG = "Please wait while I check " + "every one of the loans on your card, " * 6 + "then I will come back to you."


def test_a_long_sentence_is_quoted_on_one_line_and_clipped_with_an_ellipsis():
    quoted = quote("Please  wait\twhile I check.\n" + LONG)
    assert len(quoted) == QUOTED and quoted.endswith("…") and quoted.startswith("Please wait while I check. Please")


def test_the_sentence_at_a_position_is_the_one_that_holds_it():
    text = "Hello there. The customer asks for a renewal!\nThanks."
    assert sentence_at(text, text.index("customer")) == "The customer asks for a renewal!"
    assert sentence_at(text, text.index("Thanks")) == "Thanks."
    assert first_sentence(text, lambda sentence: "renewal" in sentence) == "The customer asks for a renewal!"
    assert first_sentence(text, lambda sentence: "overdue" in sentence) is None


def test_a_finding_and_a_fault_quote_one_long_sentence_alike(library: Environment):
    messages = [Message(role="chatbot", content="Hello."), Message(role="user", content="Renew my loans."),
                Message(role="chatbot", content=LONG)]
    (finding,) = announced_work_was_done(Trace(messages=messages, environment=library))
    stopped = Dialog(id="L1", status="pass", reason=USER_ENDED, transcript=messages)
    (fault,) = program_faults(Event(id="L1", policies=["P1"], scenario="You want to renew your loans."), stopped)
    assert f'"{quote(LONG)}"' in finding.message and f'"{quote(LONG)}"' in fault.evidence
