"""The viewer's server over real HTTP: on 127.0.0.1 only, answering to its own names only, reading only, and
handing out no file outside the viewed folder."""

from __future__ import annotations

import hashlib
import http.client
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from intellagent.cli import main
from intellagent.view.server import ViewServer

SECRET = "the neighbour's password"


@pytest.fixture(scope="module")
def server(shelf: Path) -> Iterator[ViewServer]:
    (shelf.parent / "outside.txt").write_text(SECRET)
    (shelf / "build-1" / "leak.txt").symlink_to(shelf.parent / "outside.txt")
    running = ViewServer(shelf, port=0, alpha=0.05)
    thread = threading.Thread(target=running.serve_forever, daemon=True)
    thread.start()
    yield running
    running.shutdown()
    running.server_close()
    (shelf / "build-1" / "leak.txt").unlink()


def request(server: ViewServer, path: str, *, method: str = "GET", host: str | None = None) -> tuple[int, str]:
    """Send `path` as it is, no normalising on the way, and return the status and body."""
    connection = http.client.HTTPConnection("127.0.0.1", server.server_address[1], timeout=10)
    connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    connection.putheader("Host", host or f"127.0.0.1:{server.server_address[1]}")
    connection.endheaders()
    answer = connection.getresponse()
    body = answer.read().decode("utf-8", errors="replace")
    connection.close()
    return answer.status, body


def fingerprint(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def test_it_listens_on_127_0_0_1_only(server: ViewServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert server.url == f"http://127.0.0.1:{server.server_address[1]}/"


def test_it_cannot_be_reached_on_another_address_of_the_machine(server: ViewServer) -> None:
    try:
        address = socket.gethostbyname(socket.gethostname())
    except OSError:
        pytest.skip("the machine has no name to look up")
    if address.startswith("127."):
        pytest.skip("the machine's name is a loopback address")
    with pytest.raises(OSError), socket.create_connection((address, server.server_address[1]), timeout=3):
        pass


def test_the_index_and_a_runs_own_report_are_served(server: ViewServer, shelf: Path) -> None:
    status, index = request(server, "/")
    assert status == 200 and 'id="run-build-1"' in index
    status, report = request(server, "/runs/build-1/report.html")
    assert status == 200 and report == (shelf / "build-1" / "report.html").read_text()


@pytest.mark.parametrize("path", [
    "/runs/../outside.txt",
    "/runs/build-1/../../outside.txt",
    "/runs/%2e%2e/outside.txt",
    "/runs/build-1/%2E%2E/%2E%2E/outside.txt",
    "/runs/..%2foutside.txt",
    "/runs/..%5coutside.txt",
    "/runs//etc/passwd",
    "/runs/%2Fetc%2Fpasswd",
    "/runs/build-1/leak.txt",
    "/../outside.txt",
])
def test_no_file_outside_the_viewed_folder_is_served(server: ViewServer, path: str) -> None:
    status, body = request(server, path)
    assert status == 404
    assert SECRET not in body and "root:" not in body


def test_it_answers_no_other_host_name(server: ViewServer) -> None:
    status, body = request(server, "/", host="attacker.example:80")
    assert status == 403 and "run-build-1" not in body


@pytest.mark.parametrize("method", ["PUT", "POST", "DELETE"])
def test_it_writes_nothing(server: ViewServer, shelf: Path, method: str) -> None:
    before = fingerprint(shelf)
    status, _ = request(server, "/runs/build-1/report.json", method=method)
    request(server, "/compare?a=build-1&b=build-2")
    assert status == 501
    assert fingerprint(shelf) == before


def test_a_folder_that_is_not_there_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(tmp_path / "nowhere")]) == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


def test_a_port_already_taken_is_a_one_line_error(server: ViewServer, shelf: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(shelf), "--port", str(server.server_address[1])]) == 2
    error = capsys.readouterr().err
    assert "choose another --port" in error and error.strip().count("\n") == 0
