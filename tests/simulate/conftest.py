"""Fixtures of the simulate tests: run folders holding shop events."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from scripted_dialogs import ORDERS

from intellagent.artifacts import Event
from intellagent.config import Config
from intellagent.environment import load_environment
from intellagent.runner import execute

Handler = Callable[[str, dict[str, Any], dict[str, str]], tuple[int, Any]]


@pytest.fixture
def run_folder(tmp_path: Path) -> Callable[..., Path]:
    """Make a run folder holding `events` (each with a database of ORDERS) for `config`."""

    def make(config: Config, events: list[Event]) -> Path:
        folder = tmp_path / "run"
        asyncio.run(execute(config, output=folder, stages=(), progress=False))
        environment = load_environment(config.environment)
        lines = []
        for item in events:
            if item.database:
                environment.create_database(folder / item.database, seed=0, background=False)
                with environment.session(folder / item.database) as session:
                    for order_id, (customer, status) in ORDERS.items():
                        session.add(environment.table("orders")(order_id=order_id, customer=customer, status=status))
            lines.append(item.model_dump_json() + "\n")
        (folder / "events.jsonl").write_text("".join(lines))
        return folder

    return make


@pytest.fixture
def server() -> Iterator[Callable[[Handler], str]]:
    """A local HTTP server answering each POST with `handler(path, body, headers) -> (status, payload)`."""
    servers: list[ThreadingHTTPServer] = []

    def start(handler: Handler) -> str:
        class Answer(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, payload = handler(self.path, body, self.headers)  # case-insensitive, as HTTP headers are
                data = payload.encode() if isinstance(payload, str) else json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        httpd = ThreadingHTTPServer(("127.0.0.1", 0), Answer)
        servers.append(httpd)
        threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return f"http://127.0.0.1:{httpd.server_address[1]}"

    yield start
    for httpd in servers:
        httpd.shutdown()
        httpd.server_close()
