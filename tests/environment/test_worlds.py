"""Worlds stored by difference: a delta made whole is the world it was taken from, whatever it changed."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from intellagent.cli import main
from intellagent.environment import Environment, worlds


def rows(path: Path) -> dict[str, list[tuple]]:
    """Every table's rows, read by sqlite3 itself, in key order, with each value's storage class."""
    with sqlite3.connect(path) as connection:
        names = [name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: [tuple((value, type(value).__name__) for value in row)
                       for row in connection.execute(f"SELECT * FROM {name} ORDER BY 1, 2")] for name in names}


@pytest.fixture
def background(library: Environment, tmp_path: Path) -> Path:
    path = tmp_path / "run" / "events" / "_background.sqlite"
    library.create_database(path, seed=0, background=False)
    with library.session(path) as session:
        books, loans = library.table("books"), library.table("loans")
        session.add_all([books(isbn="111", title="Dune", copies=2), books(isbn="222", title="Emma", copies=0),
                         books(isbn="333", title="Kim", copies=1)])
        session.add_all([loans(isbn="111", member="ana", due="2024-06-01", fine=2),
                         loans(isbn="333", member="bo", due="2024-06-02", fine=0.5)])
    return path


def store(world: Path, whole: Path, stored: Path, *, base: Path | None = None) -> Path:
    """Store `world` as its difference from the complete database `whole`, which stands for the stored world
    `base` (itself, by default), and remove the complete file."""
    worlds.save_delta(stored, base=base or whole, found=worlds.changes(world, whole))
    world.unlink()
    return stored


def changed_copy(base: Path, path: Path, *statements: str) -> Path:
    shutil.copyfile(base, path)
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()
    return path


def test_a_delta_made_whole_is_the_world_it_was_taken_from(background: Path) -> None:
    events = background.parent
    world = changed_copy(
        background, events / "S001.sqlite",
        "INSERT INTO books VALUES ('444', 'Ulysses', 3)",       # added
        "UPDATE books SET copies = 5 WHERE isbn = '111'",       # changed
        "DELETE FROM books WHERE isbn = '222'",                 # removed
        "UPDATE loans SET fine = '2.0' WHERE member = 'ana'",   # an int become a float, as ExactNumber writes it
        "DELETE FROM loans WHERE isbn = '333' AND member = 'bo'",  # removed, by a key of two columns
    )
    expected = rows(world)

    found = worlds.changes(world, background)
    assert {name: (len(changed.rows), len(changed.removed)) for name, changed in found.items()} == {
        "books": (2, 1), "loans": (1, 1)}
    assert found["loans"].removed == [["333", "bo"]]
    stored = store(world, background, events / "S001.delta.json")
    worlds.materialize(stored, events / "whole.sqlite")

    assert rows(events / "whole.sqlite") == expected
    assert worlds.changes(events / "whole.sqlite", background) == found


def test_a_world_is_made_whole_from_paths_given_as_text(background: Path) -> None:
    world = changed_copy(background, background.parent / "S001.sqlite", "UPDATE books SET copies = 9")
    expected = rows(world)
    stored = store(world, background, background.parent / "S001.delta.json")

    worlds.materialize(str(stored), str(background.parent / "whole.sqlite"))

    assert rows(background.parent / "whole.sqlite") == expected


def test_a_dialog_over_its_event_never_reaches_the_event_or_the_background(background: Path) -> None:
    folder = background.parent.parent
    untouched = background.read_bytes()
    event = store(changed_copy(background, folder / "events" / "S001.sqlite",
                               "INSERT INTO books VALUES ('444', 'Ulysses', 3)"),
                  background, folder / "events" / "S001.delta.json")
    event_world = folder / "events" / "event.sqlite"
    worlds.materialize(event, event_world)
    (folder / "dialogs").mkdir()
    dialog = changed_copy(event_world, folder / "dialogs" / "S001.sqlite",
                          "UPDATE books SET copies = 2 WHERE isbn = '444'", "DELETE FROM books WHERE isbn = '111'")
    expected, stored_event = rows(dialog), event.read_bytes()
    stored = store(dialog, event_world, folder / "dialogs" / "S001.delta.json", base=event)

    assert [path.resolve() for path in worlds.files(stored)] == [p.resolve() for p in (stored, event, background)]
    assert worlds.root(stored) == background
    worlds.materialize(stored, folder / "dialogs" / "whole.sqlite")
    assert rows(folder / "dialogs" / "whole.sqlite") == expected
    assert background.read_bytes() == untouched and event.read_bytes() == stored_event
    assert [row[0][0] for row in rows(event_world)["books"]] == ["111", "222", "333", "444"]
    assert worlds.tables_changed(stored) == {"books"} and worlds.tables_changed(background) == set()


def test_a_dialogs_digest_counts_its_events_rows_in_tables_the_dialog_never_wrote_to(background: Path) -> None:
    folder = background.parent.parent
    event = store(changed_copy(background, folder / "events" / "S001.sqlite",
                               "INSERT INTO books VALUES ('444', 'Ulysses', 3)"),
                  background, folder / "events" / "S001.delta.json")
    event_world = folder / "events" / "event.sqlite"
    worlds.materialize(event, event_world)
    dialog = changed_copy(event_world, folder / "events" / "dialog.sqlite", "DELETE FROM loans WHERE member = 'bo'")
    found = worlds.changes(dialog, event_world)

    assert list(found) == ["loans"]
    assert worlds.world_digest(dialog, event, found) == worlds.digest(worlds.changes(dialog, background), background)


def test_a_moved_run_folder_still_makes_its_worlds_whole(background: Path, tmp_path: Path) -> None:
    world = changed_copy(background, background.with_name("S001.sqlite"), "DELETE FROM loans")
    expected = rows(world)
    store(world, background, background.with_name("S001.delta.json"))
    moved = shutil.move(background.parent.parent, tmp_path / "elsewhere")

    worlds.materialize(Path(moved) / "events" / "S001.delta.json", tmp_path / "whole.sqlite")

    assert rows(tmp_path / "whole.sqlite") == expected


def test_equal_worlds_on_one_base_have_one_digest_whatever_order_they_were_written_in(background: Path) -> None:
    ulysses, nana = "INSERT INTO books VALUES ('444', 'Ulysses', 3)", "INSERT INTO books VALUES ('555', 'Nana', 1)"
    forward = changed_copy(background, background.with_name("a.sqlite"), ulysses, nana)
    backward = changed_copy(background, background.with_name("b.sqlite"), nana, ulysses)
    as_float = changed_copy(background, background.with_name("c.sqlite"), "UPDATE loans SET fine = '2.0'")
    as_int = changed_copy(background, background.with_name("d.sqlite"), "UPDATE loans SET fine = '2'")

    def digest(world: Path) -> str:
        return worlds.digest(worlds.changes(world, background), background)

    assert digest(forward) == digest(backward) != worlds.root_digest(background)
    assert digest(as_float) != digest(as_int)
    assert digest(changed_copy(background, background.with_name("e.sqlite"))) == worlds.root_digest(background)


def test_binary_values_are_stored_and_made_whole_exactly(tmp_path: Path) -> None:
    base, world = tmp_path / "base.sqlite", tmp_path / "world.sqlite"
    with sqlite3.connect(base) as connection:
        connection.execute("CREATE TABLE files (name TEXT PRIMARY KEY, body BLOB, size REAL)")
    connection.close()
    changed_copy(base, world, "INSERT INTO files VALUES ('a', x'00ff10', 1e300)")
    expected = rows(world)

    store(world, base, tmp_path / "world.delta.json")
    worlds.materialize(tmp_path / "world.delta.json", tmp_path / "whole.sqlite")

    assert rows(tmp_path / "whole.sqlite") == expected


def test_a_missing_world_or_a_base_of_other_tables_is_refused_by_name(background: Path, tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=r"S404\.delta\.json is missing"):
        worlds.materialize(background.with_name("S404.delta.json"), tmp_path / "whole.sqlite")
    store(changed_copy(background, background.with_name("S001.sqlite")), background,
          background.with_name("S001.delta.json"))
    background.unlink()
    with pytest.raises(FileNotFoundError, match=r"_background\.sqlite is missing"):
        worlds.materialize(background.with_name("S001.delta.json"), tmp_path / "whole.sqlite")
    other = tmp_path / "other.sqlite"
    sqlite3.connect(other).close()
    world = tmp_path / "world.sqlite"
    changed_copy(other, world, "CREATE TABLE books (isbn TEXT PRIMARY KEY)")
    with pytest.raises(ValueError, match="has no table books"):
        worlds.changes(world, other)


def test_the_command_line_writes_a_stored_worlds_complete_database(background: Path, capsys) -> None:
    world = changed_copy(background, background.with_name("S001.sqlite"), "UPDATE books SET copies = 9")
    expected = rows(world)
    stored = store(world, background, background.with_name("S001.delta.json"))

    assert main(["--world", str(stored)]) == 0

    assert capsys.readouterr().out.strip() == str(background.with_name("S001.sqlite"))
    assert rows(background.with_name("S001.sqlite")) == expected
    assert main(["--world", str(background)]) == 2
    assert "give a stored world" in capsys.readouterr().err
    assert main(["--world", str(background.with_name("S404.delta.json"))]) == 2
