"""The run viewer's server: pages over every run under one folder, on 127.0.0.1 only, and nothing but reads.

Each page is made when it is asked for, from the run folders as they are then: a run that finishes shows on the
next reload, any two runs can be compared, and nothing is written into the folder. The pages need nothing from
the network. Besides its pages the server hands out the files of the viewed folder (each run's report.html), and no
file outside it.

Addresses: `/` every run; `/policy?suite=S&id=P` a policy's history; `/compare?a=EARLIER&b=LATER` two runs
compared (the link a CI job can post); `/runs/<path>` a file under the folder.
"""

from __future__ import annotations

import mimetypes
import webbrowser
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs, unquote, urlsplit

from intellagent.errors import UsageError
from intellagent.view.comparison import compare_runs
from intellagent.view.comparison_page import comparison_page
from intellagent.view.history import policy_history
from intellagent.view.history_page import history_page
from intellagent.view.index_page import index_page
from intellagent.view.page import missing_page
from intellagent.view.runs import find_runs

HOST = "127.0.0.1"
"""The only address the viewer listens on: the runs it shows are for this machine's user alone."""
DEFAULT_PORT = 8765
PAGE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'self'"
FILE_POLICY = "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:"
"""A served file (a run's report.html) may run its own inline script and reach nothing else."""
HTML = "text/html; charset=utf-8"


@dataclass(frozen=True)
class Answer:
    """What the server sends back for an address."""

    status: HTTPStatus
    content_type: str
    body: bytes
    policy: str = FILE_POLICY

    @classmethod
    def page(cls, html: str, status: HTTPStatus = HTTPStatus.OK) -> Answer:
        """A page of the viewer."""
        return cls(status, HTML, html.encode("utf-8"), PAGE_POLICY)


@dataclass(frozen=True)
class Viewer:
    """The pages over the runs under `root`; `alpha` is the level of the gate's test, `base` the server's address."""

    root: Path
    alpha: float
    base: str

    def answer(self, address: str) -> Answer:
        """What the address (path and query, as requested) leads to."""
        url = urlsplit(address)
        path, query = unquote(url.path), {key: values[-1] for key, values in parse_qs(url.query).items()}
        if path == "/":
            return Answer.page(index_page(find_runs(self.root), alpha=self.alpha))
        if path == "/policy":
            return self._history(query.get("suite", ""), query.get("id", ""))
        if path == "/compare":
            return self._comparison(query.get("a", ""), query.get("b", ""))
        if path.startswith("/runs/"):
            return self._file(path.removeprefix("/runs/"))
        return Answer.page(missing_page(f"nothing at {path}"), HTTPStatus.NOT_FOUND)

    def _history(self, suite: str, policy: str) -> Answer:
        history = policy_history(find_runs(self.root), suite, policy, alpha=self.alpha)
        if history is None:
            return Answer.page(missing_page(f"no run of suite {suite!r} holds a policy {policy!r}"),
                               HTTPStatus.NOT_FOUND)
        return Answer.page(history_page(history))

    def _comparison(self, earlier: str, later: str) -> Answer:
        catalogue = find_runs(self.root)
        runs = catalogue.run(earlier), catalogue.run(later)
        for name, run in zip((earlier, later), runs, strict=True):
            if run is None:
                return Answer.page(missing_page(f"no run named {name!r} under {self.root}"), HTTPStatus.NOT_FOUND)
            if run.figures is None:
                return Answer.page(missing_page(f"{name} cannot be compared: {run.problem}"),
                                   HTTPStatus.UNPROCESSABLE_ENTITY)
        before, after = runs
        assert before is not None and after is not None
        return Answer.page(comparison_page(compare_runs(before, after, alpha=self.alpha), base=self.base))

    def _file(self, relative: str) -> Answer:
        target = served_file(self.root, relative)
        if target is None:
            return Answer.page(missing_page(f"no file {relative} in the viewed folder"), HTTPStatus.NOT_FOUND)
        kind = mimetypes.guess_type(target.name)[0] or "text/plain"
        return Answer(HTTPStatus.OK, f"{kind}; charset=utf-8" if kind.startswith("text/") else kind,
                      target.read_bytes())


def served_file(root: Path, relative: str) -> Path | None:
    """The file under `root` that `relative` names, or None: not a file, or outside `root` (by `..`, an absolute
    path, or a link that leads out)."""
    if not relative or "\0" in relative or "\\" in relative or relative.startswith("/"):
        return None
    if ".." in PurePosixPath(relative).parts:
        return None
    home = root.resolve()
    target = (home / relative).resolve()
    if not target.is_relative_to(home) or not target.is_file():
        return None
    return target


class ViewServer(ThreadingHTTPServer):
    """The HTTP server of one viewer, bound to 127.0.0.1."""

    daemon_threads = True

    def __init__(self, root: Path, *, port: int, alpha: float) -> None:
        try:
            super().__init__((HOST, port), _Handler)
        except OSError as error:
            raise UsageError(f"cannot listen on {HOST}:{port} ({error.strerror or error}); choose another --port, "
                             "or 0 for any free one") from None
        self.viewer = Viewer(root=root, alpha=alpha, base=self.url.rstrip("/"))

    @property
    def url(self) -> str:
        """The address of the index page."""
        return f"http://{HOST}:{self.server_address[1]}/"

    @property
    def hosts(self) -> set[str]:
        """The Host headers a request may carry: this machine's names for the server, nothing a web page could
        point at itself by rebinding a domain to 127.0.0.1."""
        port = self.server_address[1]
        return {f"{HOST}:{port}", f"localhost:{port}"}


class _Handler(BaseHTTPRequestHandler):
    server: ViewServer

    def do_GET(self) -> None:
        self._send(with_body=True)

    def do_HEAD(self) -> None:
        self._send(with_body=False)

    def _send(self, *, with_body: bool) -> None:
        if self.headers.get("Host", "") not in self.server.hosts:
            answer = Answer.page(missing_page("this viewer answers only to 127.0.0.1 and localhost"),
                                 HTTPStatus.FORBIDDEN)
        else:
            try:
                answer = self.server.viewer.answer(self.path)
            except Exception as error:  # a fault of the viewer: said on the page, and the server goes on
                answer = Answer.page(missing_page(f"the viewer failed on this page: {type(error).__name__}: {error}"),
                                     HTTPStatus.INTERNAL_SERVER_ERROR)
        self.send_response(answer.status)
        self.send_header("Content-Type", answer.content_type)
        self.send_header("Content-Length", str(len(answer.body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Content-Security-Policy", answer.policy)
        self.end_headers()
        if with_body:
            self.wfile.write(answer.body)

    def log_message(self, format: str, *args: object) -> None:  # quiet: the terminal shows the address only
        return


def serve(root: Path, *, port: int = DEFAULT_PORT, alpha: float, open_browser: bool = False) -> int:
    """Serve the viewer over `root` until Ctrl-C; return the exit code.

    Raises:
        UsageError: `root` is not a folder, or the port cannot be had.
    """
    if not root.is_dir():
        raise UsageError(f"{root} is not a folder; give the folder that holds your run folders (e.g. results)")
    server = ViewServer(root, port=port, alpha=alpha)
    print(f"viewing the runs under {root} at {server.url} (Ctrl-C stops)", flush=True)
    if open_browser:
        webbrowser.open(server.url)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
