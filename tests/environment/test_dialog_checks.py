"""The checks every domain gets, on the lending library: confirmation, grounding, valid writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from intellagent.artifacts import Claim, Message, ToolCall
from intellagent.checks import Check, Trace
from intellagent.checks.builtin import (
    announced_work_was_done,
    claimed_changes_were_made,
    confirmed_before_write,
    grounded_facts,
    writes_are_valid,
)
from intellagent.environment import Environment, Tool


def call(name: str, result: str = "ok") -> ToolCall:
    return ToolCall(id="c1", name=name, arguments={}, result=result)


@pytest.fixture
def confirming(library: Environment) -> Environment:
    """The library, with its writing tools marked as needing the customer's yes."""
    tools = [Tool(**{**vars(tool), "confirm": tool.writes}) for tool in library.tools]
    return Environment(name=library.name, policy=library.policy, tables=library.tables, tools=tools,
                       validators=library.validators, background=library.background)


def writer(env: Environment) -> str:
    return next(tool.name for tool in env.tools if tool.writes)


@pytest.mark.parametrize("answer", ["Yes, go ahead.", "ok", "Sure, do it."])
def test_a_write_right_after_an_explicit_yes_is_fine(confirming: Environment, answer: str) -> None:
    messages = [Message(role="chatbot", content="Hello."), Message(role="user", content="Renew my loan."),
                Message(role="chatbot", content="I will renew the loan. Shall I?"),
                Message(role="user", content=answer),
                Message(role="chatbot", content="Done.", tool_calls=[call(writer(confirming))])]

    assert confirmed_before_write(Trace(messages=messages, environment=confirming)) == []


def test_a_yes_to_the_greeting_agrees_to_no_stated_action(confirming: Environment) -> None:
    messages = [Message(role="chatbot", content="Hello! How can I help?"),
                Message(role="user", content="Yes, renew my loan."),
                Message(role="chatbot", content="Done.", tool_calls=[call(writer(confirming))])]

    (finding,) = confirmed_before_write(Trace(messages=messages, environment=confirming))
    assert finding.turn == 2 and 'last said "Yes, renew my loan."' in finding.message


@pytest.mark.parametrize("answer", ["Renew my loan.", "No, wait.", "yes but not now, don't"])
def test_a_write_without_an_explicit_yes_is_found(confirming: Environment, answer: str) -> None:
    messages = [Message(role="chatbot", content="Hello."), Message(role="user", content=answer),
                Message(role="chatbot", content="Done.", tool_calls=[call(writer(confirming))])]

    (finding,) = confirmed_before_write(Trace(messages=messages, environment=confirming))
    assert finding.check == "confirmed_before_write" and finding.turn == 2


def test_ids_amounts_and_dates_are_grounded_in_results_the_customer_or_the_policy(library: Environment) -> None:
    messages = [
        Message(role="user", content="My card is LIB12345."),
        Message(role="chatbot", content="Checking.", tool_calls=[call("x", result='{"fee": 25, "due": "2024-06-01"}')]),
        Message(role="chatbot", content="Card LIB12345 owes $25, twice is $50, due 2024-06-01."),
        Message(role="chatbot", content="Your loan LN99881 costs $37.50 and ends 2024-07-09."),
    ]

    (finding,) = grounded_facts(Trace(messages=messages, environment=library))
    assert finding.turn == 3 and all(token in finding.message for token in ("LN99881", "$37.50", "2024-07-09"))


def test_a_value_the_customer_claimed_falsely_grounds_nothing_the_chatbot_says(library: Environment) -> None:
    claim = Claim(statement="my due date is 2024-09-30", table="loans", row={"loan_id": "LN1"}, column="due",
                  claimed="2024-09-30", actual="2024-06-01")
    messages = [Message(role="user", content="My card is LIB12345 and my due date is 2024-09-30."),
                Message(role="chatbot", content="Card LIB12345 is due 2024-09-30.")]

    (finding,) = grounded_facts(Trace(messages=messages, environment=library, claims=[claim]))
    assert finding.turn == 1 and "2024-09-30" in finding.message and "LIB12345" not in finding.message
    assert grounded_facts(Trace(messages=messages, environment=library)) == []  # said by the customer, and no claim


def test_a_row_the_chatbot_left_that_breaks_a_validator_is_found_and_untouched_rows_are_not(
    library: Environment, shelf: Path
) -> None:
    with library.session(shelf) as session:
        before = library.dump(session)
    clean = writes_are_valid(Trace(messages=[], environment=library, before=before, database=shelf))
    with sqlite3.connect(shelf) as connection:
        connection.execute("UPDATE books SET copies = -1 WHERE isbn = '111'")

    trace = Trace(messages=[], environment=library, before=before, database=shelf)
    (finding,) = writes_are_valid(trace)

    assert clean == []
    assert [row["copies"] for row in trace.after["books"] if row["isbn"] == "111"] == [-1]  # what the chatbot left
    assert finding.row == "books row ('111')" and "copies_not_negative: copies is -1" in finding.message


def test_a_world_the_dialog_left_unchanged_is_not_read_again(library: Environment, shelf: Path) -> None:
    with library.session(shelf) as session:
        before = library.dump(session)
    with sqlite3.connect(shelf) as connection:  # a broken row, which only a read of the file would find
        connection.execute("UPDATE books SET copies = -1 WHERE isbn = '111'")

    unchanged = Trace(messages=[], environment=library, before=before, database=shelf, written=[])
    assert writes_are_valid(unchanged) == []
    assert len(writes_are_valid(Trace(messages=[], environment=library, before=before, database=shelf))) == 1


def test_a_check_may_declare_the_category_of_policies_it_enforces() -> None:
    from intellagent.checks import check
    from intellagent.errors import UsageError

    @check(category="payment")
    def refunds_go_back_to_the_card(trace: Trace):
        """Refunds go back to the original card."""
        return []

    assert (refunds_go_back_to_the_card.name, refunds_go_back_to_the_card.category) == ("refunds_go_back_to_the_card",
                                                                                         "payment")
    assert refunds_go_back_to_the_card.rule == "Refunds go back to the original card."
    assert confirmed_before_write.category == "user_consent" and writes_are_valid.category is None
    with pytest.raises(UsageError, match="no docstring"):
        check(category="payment")(lambda trace: [])


@pytest.mark.parametrize(("found_by", "reply", "quoted"), [
    (claimed_changes_were_made, "Sure. Your reservation has been cancelled.", "Your reservation has been cancelled."),
    (claimed_changes_were_made, "Done! I've booked the flight for you.", "I've booked the flight for you."),
    (claimed_changes_were_made, "The booking is now confirmed and your card was charged.",
     "The booking is now confirmed"),
    (announced_work_was_done, "Great! I'll update the cabin. Please wait a moment while I do that.",
     "Please wait a moment while I do that.\""),
    (announced_work_was_done, "Thank you, John. I'll proceed with your reservation.",
     "I'll proceed with your reservation.\""),
    (announced_work_was_done, "Let me look that up for you.", "Let me look that up for you.\""),
    (announced_work_was_done, "One moment, I'm checking your loans now.", "One moment, I'm checking your loans now.\""),
])
def test_a_change_claimed_or_work_announced_with_no_tool_behind_it_is_found(
    library: Environment, found_by: Check, reply: str, quoted: str
) -> None:
    messages = [Message(role="chatbot", content="Hello."), Message(role="user", content="Cancel it, please."),
                Message(role="chatbot", content=reply)]

    (finding,) = found_by(Trace(messages=messages, environment=library))
    assert finding.turn == 2 and f'said "{quoted}' in finding.message


@pytest.mark.parametrize("said", ["I will cancel it once you confirm.", "It has not been cancelled yet.",
                                  "If you agree, it can be rebooked.", "Has it been cancelled already?",
                                  "I can't say whether it was updated."])
def test_a_hedged_or_asked_change_is_no_claim(library: Environment, said: str) -> None:
    messages = [Message(role="chatbot", content=said)]
    assert claimed_changes_were_made(Trace(messages=messages, environment=library)) == []


def test_a_claim_after_a_successful_write_is_fine_and_after_a_failed_one_is_not(library: Environment) -> None:
    done = [Message(role="chatbot", content="It has been updated.", tool_calls=[call(writer(library))])]
    failed = [Message(role="chatbot", content="It has been updated.",
                      tool_calls=[call(writer(library), result="Error: no such loan")])]

    assert claimed_changes_were_made(Trace(messages=done, environment=library)) == []
    assert len(claimed_changes_were_made(Trace(messages=failed, environment=library))) == 1


@pytest.mark.parametrize("said", ["Let me check that for you. What is your card number?",
                                  "Let me know if there is anything else.", "I will renew it once you confirm.",
                                  "In a moment of doubt, ask a librarian.", "Your loan is due on Friday."])
def test_a_question_a_plan_or_a_plain_statement_announces_no_work(library: Environment, said: str) -> None:
    messages = [Message(role="chatbot", content=said)]
    assert announced_work_was_done(Trace(messages=messages, environment=library)) == []


def test_work_announced_with_a_tool_call_in_the_same_turn_is_fine(library: Environment) -> None:
    messages = [Message(role="chatbot", content="One moment while I renew it.", tool_calls=[call(writer(library))])]
    assert announced_work_was_done(Trace(messages=messages, environment=library)) == []


def test_a_code_of_the_world_stated_without_a_source_is_found(library: Environment) -> None:
    world = {"books": [{"isbn": "B1", "shelf": "SCI"}, {"isbn": "B2", "shelf": "ART"}]}
    guessed = [Message(role="user", content="Where is my book?"),
               Message(role="chatbot", content="It is on shelf SCI, next to the USA atlas. OK?")]
    looked_up = [Message(role="user", content="Where is my book?"),
                 Message(role="chatbot", content="It is on shelf SCI.",
                         tool_calls=[call("find_book", result='{"shelf": "SCI"}')])]

    (finding,) = grounded_facts(Trace(messages=guessed, environment=library, before=world))
    assert finding.message.startswith("stated SCI,")  # USA and OK are no values of this world
    assert grounded_facts(Trace(messages=looked_up, environment=library, before=world)) == []


def test_checks_read_only_the_tables_they_look_at_and_the_writes_only_in_the_tables_written(
    library: Environment, shelf: Path, tmp_path: Path
) -> None:
    from intellagent.checks.trace import WorldRows

    left = tmp_path / "left.sqlite"
    left.write_bytes(shelf.read_bytes())
    with sqlite3.connect(left) as connection:  # the chatbot lent a book the library does not hold
        connection.execute("INSERT INTO loans VALUES ('999', 'ann', '2024-06-01', '0')")
    before = WorldRows(library, shelf)
    trace = Trace(messages=[], environment=library, before=before, database=left, start=shelf)

    (finding,) = writes_are_valid(trace)

    assert finding.row == "loans row ('999', 'ann')"
    assert trace.changed_tables == ["loans"] and list(before._read) == ["loans"]  # books was never read
    assert trace.rows("books", isbn="111") == [{"isbn": "111", "title": "Dune", "copies": 2}]
    assert list(before._read) == ["loans", "books"] and set(before) == {"books", "loans"}
    # The simulate stage knows the tables already: no event file to compare with (all tables, without it).
    known = Trace(messages=[], environment=library, before=before, database=left, written=["loans"])
    (again,) = writes_are_valid(known)
    assert again == finding and known.changed_tables == ["loans"]


def test_a_code_of_the_world_stated_from_nowhere_is_found_in_the_file_as_in_its_rows(
    library: Environment, shelf: Path
) -> None:
    from intellagent.checks.trace import WorldRows

    with library.session(shelf) as session:
        session.add(library.table("books")(isbn="QX42", title="Kim", copies=1))
    messages = [Message(role="user", content="Do you have Kim?"),
                Message(role="chatbot", content="Kim is QX42 on our shelf; ZZ99 is not a code we use.")]
    by_file = Trace(messages=messages, environment=library, before=WorldRows(library, shelf), start=shelf)
    with library.session(shelf) as session:
        by_rows = Trace(messages=messages, environment=library, before=library.dump(session))

    for trace in (by_file, by_rows):
        (finding,) = grounded_facts(trace)
        assert "QX42" in finding.message and "ZZ99" not in finding.message
    assert by_file.before._read == {}  # found by SQLite, not by reading the rows  # type: ignore[attr-defined]


def test_dialogs_that_start_from_one_event_file_read_each_of_its_tables_once(
    library: Environment, shelf: Path, tmp_path: Path, monkeypatch
) -> None:
    from intellagent.checks import running, trace

    read: list[str] = []
    dump = trace.database.dump
    monkeypatch.setattr(trace.database, "dump", lambda session, tables: read.extend(t.__tablename__ for t in tables)
                        or dump(session, tables))
    for trial in (1, 2):  # two trials of an event, or two τ-bench tasks on the task set's database
        left = tmp_path / f"left-{trial}.sqlite"
        left.write_bytes(shelf.read_bytes())
        with sqlite3.connect(left) as connection:
            connection.execute("INSERT INTO loans VALUES ('999', 'ann', '2024-06-01', '0')")
        _, findings, _ = running.run_checks(library, [], before=shelf, database=left, written=["loans"])
        assert [finding.row for finding in findings] == ["loans row ('999', 'ann')"]
    assert read == ["loans"]
