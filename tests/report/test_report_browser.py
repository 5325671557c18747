"""report.html in a real browser: Debian's headless Chromium, driven by Playwright (never a downloaded browser)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from intellagent.artifacts.labels import Label

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(not CHROMIUM.exists(), reason=f"needs Debian's chromium at {CHROMIUM}; make test installs it"),
]


@pytest.fixture(scope="module")
def browser(shop_report, outcome_report) -> Iterator[object]:
    # The reports are made first: Playwright's sync API keeps an event loop running while it is open.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()


class Opened:
    """A page showing the report, with what went wrong while it loaded."""

    def __init__(self, browser, path: Path) -> None:
        self.page = browser.new_page(viewport={"width": 1360, "height": 900})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda message: self.errors.append(message.text) if message.type == "error" else None)
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.goto(path.as_uri())

    def visible_rows(self) -> list[str]:
        return self.page.eval_on_selector_all(
            "#policy-table tbody tr", "rows => rows.filter(r => !r.hidden).map(r => r.id.replace('policy-', ''))"
        )


@pytest.fixture
def report(shop_report, browser) -> Iterator[Opened]:
    opened = Opened(browser, shop_report[1].path("report.html"))
    yield opened
    opened.page.close()


def test_the_report_opens_without_console_errors_or_requests(report):
    assert report.errors == []
    assert [url for url in report.requests if not url.startswith("file://")] == []


def test_the_policy_table_and_the_charts_render(report):
    assert report.visible_rows() == ["P03", "P02", "P01", "P04", "P05"]
    assert report.page.locator("#policy-count").inner_text() == "5 of 5 policies"
    charts = report.page.locator("svg.chart")
    assert charts.count() == 5
    for index in range(charts.count()):
        box = charts.nth(index).bounding_box()
        assert box is not None and box["width"] > 200 and box["height"] > 50
    assert report.page.locator("svg.chart circle").count() >= 5


def test_clicking_a_header_sorts_the_table(report):
    report.page.click("th[data-key=id]")
    assert report.visible_rows() == ["P01", "P02", "P03", "P04", "P05"]
    report.page.click("th[data-key=id]")
    assert report.visible_rows() == ["P05", "P04", "P03", "P02", "P01"]
    report.page.click("th[data-key=rate]")
    assert report.visible_rows()[:2] == ["P03", "P02"] and report.visible_rows()[-1] == "P05"  # untested last


def test_typing_and_choosing_filter_the_table(report):
    report.page.fill("#policy-filter", "refund")
    assert report.visible_rows() == ["P02"]
    report.page.fill("#policy-filter", "")
    report.page.select_option("#state-filter", "violated")
    assert report.visible_rows() == ["P03", "P02"]
    assert report.page.locator("#policy-count").inner_text() == "2 of 5 policies"


def test_a_dialog_transcript_opens(report):
    card = report.page.locator("#dialog-S002")
    assert not card.locator(".transcript").is_visible()
    card.locator("summary").click()
    assert card.locator(".transcript").is_visible()
    assert card.locator("#turn-S002-4 .text").inner_text() == "Done, I changed it."
    assert card.locator(".tool code").first.inner_text() == "get_order"


def test_a_violation_link_in_the_table_opens_its_dialog(report):
    from playwright.sync_api import expect

    report.page.click("#policy-P03 .links a")
    # The dialog opens on "hashchange", which the browser fires after the click returns: wait for it.
    expect(report.page.locator("#dialog-S002")).to_have_attribute("open", "", timeout=5000)


def test_injected_markup_stays_text(report):
    card = report.page.locator("#dialog-S001")
    card.locator("summary").click()
    text = card.locator("#turn-S001-4 .text").inner_text()
    assert '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">' in text
    assert report.page.evaluate("typeof window.__pwned") == "undefined"
    assert report.page.locator("img, iframe").count() == 0


def test_on_a_phone_nothing_is_wider_than_the_screen_and_a_dialog_opens_on_tap(shop_report, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(shop_report[1].path("report.html").as_uri())
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    card = page.locator("#dialog-S002")
    card.locator("summary").tap()
    assert card.get_attribute("open") is not None and card.locator(".transcript").is_visible()
    context.close()


def test_the_outcome_section_and_a_graded_card_fit_a_phone_and_run_no_markup(outcome_report, browser):
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(outcome_report[1].path("report.html").as_uri() + "#dialog-S003")
    card = page.locator("#dialog-S003")
    assert card.get_attribute("open") is not None and card.locator(".outcome-check").is_visible()
    assert page.locator("#outcomes").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate("typeof window.__pwned") == "undefined" and page.locator("img").count() == 0
    context.close()


def test_a_dialogs_label_form_copies_the_lines_of_labels_jsonl(report):
    page = report.page
    page.click("#dialog-S002 summary")
    page.click("#dialog-S002 button.label-open")
    form = page.locator("#dialog-S002 form.label-lines-form")
    assert form.locator("td.label-policy-id").all_inner_texts() == ["P01", "P03"]
    form.locator('select[data-policy="P03"]').select_option("broken")
    form.locator('select[name="user"]').select_option("yes")
    form.locator('input[value="narrated"]').check()
    form.locator('input[name="note"]').fill("changed it unasked")
    form.locator("button.label-copy").click()
    lines = form.locator("textarea.label-lines").input_value().splitlines()
    (line,) = lines  # P01 was left unlabelled
    label = Label.model_validate_json(line)
    assert (label.dialog, label.policy, label.verdict, label.user_at_fault, label.faults, label.note) == (
        "S002", "P03", "broken", True, ["narrated"], "changed it unasked")
    assert label.digest and report.errors == []


def test_a_label_of_the_user_alone_is_one_line_without_a_policy(report):
    page = report.page
    page.click("#dialog-S001 summary")
    page.click("#dialog-S001 button.label-open")
    form = page.locator("#dialog-S001 form.label-lines-form")
    form.locator('select[name="user"]').select_option("no")
    form.locator("button.label-copy").click()
    (line,) = form.locator("textarea.label-lines").input_value().splitlines()
    label = Label.model_validate_json(line)
    assert (label.dialog, label.policy, label.user_at_fault) == ("S001", None, False)
