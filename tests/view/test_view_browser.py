"""The viewer in a real browser: Debian's headless Chromium, driven by Playwright, against the server.

Each view is photographed; `VIEWER_PICTURES=docs/images` keeps the pictures there (the README shows them).
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from intellagent.view.server import ViewServer
from tests.report.test_report_browser import ARGS, CHROMIUM
from tests.view.run_shelf import ASKED

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs Debian's chromium at {CHROMIUM}; make test installs it"),
]


@pytest.fixture(scope="module")
def server(shelf: Path) -> Iterator[ViewServer]:
    running = ViewServer(shelf, port=0, alpha=0.05)
    threading.Thread(target=running.serve_forever, daemon=True).start()
    yield running
    running.shutdown()
    running.server_close()


@pytest.fixture(scope="module")
def browser(server: ViewServer) -> Iterator[object]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser, server: ViewServer) -> Iterator[object]:
    opened = browser.new_page(viewport={"width": 1360, "height": 900})
    opened.errors, opened.elsewhere = [], []
    opened.on("console", lambda message: opened.errors.append(message.text) if message.type == "error" else None)
    opened.on("pageerror", lambda error: opened.errors.append(str(error)))
    opened.on("request", lambda request: None if request.url.startswith(server.url) else
              opened.elsewhere.append(request.url))
    yield opened
    assert opened.errors == [] and opened.elsewhere == []  # offline: nothing asked of any other address
    opened.close()


def photograph(page, name: str, tmp_path: Path) -> None:
    """A picture of the whole page; kept in $VIEWER_PICTURES when set."""
    picture = tmp_path / f"viewer-{name}.png"
    page.screenshot(path=str(picture), full_page=True)
    assert picture.stat().st_size > 10_000
    if os.environ.get("VIEWER_PICTURES"):
        shutil.copy(picture, Path(os.environ["VIEWER_PICTURES"]) / picture.name)


def test_the_index_lists_the_runs_and_opens_a_runs_report(page, server: ViewServer, tmp_path: Path) -> None:
    page.goto(server.url)
    rows = page.eval_on_selector_all("#runs tbody tr", "rows => rows.map(r => r.id)")
    assert rows == ["run-half", "run-build-3", "run-build-2", "run-build-1", "run-torn"]
    photograph(page, "index", tmp_path)
    page.click("#run-build-1 a >> nth=0")
    assert page.locator("h1").inner_text() == "shop" and page.locator("#policy-table").is_visible()


def test_the_history_of_a_policy_renders(page, server: ViewServer, tmp_path: Path) -> None:
    page.goto(server.url)
    page.click('#suite-shop a:text("P03")')
    assert page.locator("h1").inner_text() == "P03"
    chart = page.locator("#history svg.chart")
    box = chart.bounding_box()
    assert box is not None and box["width"] > 400 and box["height"] > 100
    assert chart.locator("circle.s1").count() == 2
    photograph(page, "history", tmp_path)


def test_two_runs_picked_on_the_index_show_the_flipped_dialog_side_by_side(page, server: ViewServer,
                                                                          tmp_path: Path) -> None:
    page.goto(server.url)
    page.select_option("#compare select[name=a]", "build-1")
    page.select_option("#compare select[name=b]", "build-2")
    page.click("#compare button")
    assert page.url == server.url + "compare?a=build-1&b=build-2"
    before, after = page.locator("#flip-S002 .side.before"), page.locator("#flip-S002 .side.after")
    assert before.locator(".transcript").is_visible() and after.locator(".transcript").is_visible()
    assert before.locator(".msg.chatbot .text").last.inner_text() == "Done, I changed it."
    assert after.locator(".msg.chatbot .text").last.inner_text() == ASKED
    left, right = before.bounding_box(), after.bounding_box()
    assert left["x"] + left["width"] <= right["x"]  # side by side, the earlier run on the left
    photograph(page, "comparison", tmp_path)
