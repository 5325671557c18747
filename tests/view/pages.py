"""Reading the viewer's pages in tests: a table row's text, by the row's id."""

from __future__ import annotations

import re
from html import unescape

from intellagent.view.server import Viewer


def page_text(html: str) -> str:
    """The text of a piece of HTML, its tags dropped and every run of spaces made one."""
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def element(html: str, element_id: str) -> str:
    """The HTML of the element with that id, up to its closing tag (rows, sections, divs that nest none alike)."""
    start = re.search(rf'<(\w+)[^>]* id="{re.escape(element_id)}"', html)
    assert start is not None, f"no element #{element_id}"
    tag = start.group(1)
    depth, at = 0, start.start()
    for match in re.finditer(rf"<(/?){tag}\b", html[at:]):
        depth += -1 if match.group(1) else 1
        if depth == 0:
            return html[at: at + match.start()]
    raise AssertionError(f"#{element_id} is not closed")


def get(viewer: Viewer, address: str) -> tuple[int, str]:
    """The status and page the viewer answers for an address."""
    answer = viewer.answer(address)
    return answer.status, answer.body.decode("utf-8")
