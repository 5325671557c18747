"""report.html: self-contained, every dialog shown in full, and whatever a model wrote stays text."""

from __future__ import annotations

import re
from html import escape

from shop_run import GIVEN_UP, INJECTED

from intellagent.artifacts import CATEGORY_LABELS, Analysis, Message, ToolCall
from intellagent.reports.dialog_view import dialog_card
from intellagent.reports.html import report_html
from intellagent.reports.inputs import load_artifacts


def page(shop_report) -> str:
    return shop_report[1].path("report.html").read_text()


def test_injected_markup_in_a_chatbot_reply_is_escaped(shop_report):
    html = page(shop_report)
    assert INJECTED not in html and "<img" not in html and "__pwned" not in html.split("<script>")[-1]
    escaped = "&lt;script&gt;window.__pwned = 1&lt;/script&gt;&lt;img src=x onerror=&quot;window.__pwned = 2&quot;&gt;"
    assert escaped in html


def test_markup_in_tool_results_and_thoughts_is_escaped(shop_report):
    html = page(shop_report)
    assert "&lt;/pre&gt;&lt;b&gt;bold&lt;/b&gt;" in html and "<b>bold</b>" not in html
    assert "Open with the goal &lt;iframe&gt;." in html and "<iframe" not in html


def test_a_call_the_chatbot_only_reported_is_marked_on_its_card(shop_report):
    html = page(shop_report)
    (card,) = [c for c in html.split('<details class="dialog"')[1:] if 'id="dialog-S002"' in c]
    assert card.count('class="tool reported"') == 1 and "<span>reported tool</span> <code>send_email</code>" in card
    assert html.count('class="tool reported"') == 1


def test_a_tool_that_answered_with_an_error_is_drawn_as_one(shop_report):
    artifacts = load_artifacts(shop_report[1])
    dialog = artifacts.dialogs[0]
    refused = ToolCall(id="c1", name="cancel_order", arguments={"order_id": "A9"}, result="Error: no order A9")
    done = ToolCall(id="c2", name="get_order", arguments={"order_id": "A1"}, result='{"status": "placed"}')
    turn = Message(role="chatbot", content="Sorry.", tool_calls=[refused, done])
    card = dialog_card(dialog.model_copy(update={"transcript": [*dialog.transcript, turn]}),
                       Analysis(id=dialog.id, status="pass", source="x"), artifacts)
    assert card.count('class="tool failed"') == 1 and "<span>tool error</span> <code>cancel_order</code>" in card
    assert "<span>tool</span> <code>get_order</code>" in card


def test_a_run_that_judged_nothing_says_why_at_the_top(shop_report):
    result, folder = shop_report
    artifacts = load_artifacts(folder)
    report = result.report
    nothing = report.model_copy(update={"overall": report.overall.model_copy(
        update={"pass_rate": report.overall.pass_rate.of(0, 0)})})
    analyses = {a.id: a for a in folder.analyses.load()}
    html = report_html(nothing, artifacts, analyses)
    assert "No dialog got a verdict" in html
    for dialog in artifacts.dialogs:
        assert f"<code>{dialog.id}</code> {dialog.status}: {escape(dialog.reason or 'no reason recorded')}" in html
    assert "No dialog got a verdict" not in page(shop_report)


def test_categories_are_named_alike_in_the_charts_and_the_table(shop_report):
    html = page(shop_report)
    for policy in shop_report[0].report.policies:
        row = html.split(f'<tr id="policy-{policy.id}"')[1].split("</tr>")[0]
        assert f">{escape(CATEGORY_LABELS[policy.category])}</td>" in row
    assert f'<option value="user_consent">{escape(CATEGORY_LABELS["user_consent"])}</option>' in html


def test_the_page_has_one_script_and_loads_nothing(shop_report):
    html = page(shop_report)
    assert html.count("<script") == 1
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html)
    assert "<link" not in html and "@import" not in html
    assert "default-src 'none'" in html


def test_every_dialog_has_a_card_with_scenario_expected_behaviour_and_transcript(shop_report):
    html = page(shop_report)
    for dialog_id in ("S001", "S002", "S003", "S004", "S005"):
        card = html.split(f'id="dialog-{dialog_id}"')[1].split("</details>")[0]
        assert "Scenario" in card and "Expected behaviour" in card
        assert f"Customer C-{dialog_id} wants order O-1 changed to size M." in card
    s002 = html.split('id="dialog-S002"')[1].split("</details>")[0]
    assert "get_order" in s002 and "Open with the goal" in s002 and "Critique at turn 2" in s002


def test_the_violating_turn_and_policy_are_highlighted(shop_report):
    html = page(shop_report)
    assert '<li class="msg chatbot flagged" id="turn-S002-4">' in html
    assert '<span class="chip violated">breaks P03</span>' in html


def test_the_policy_table_is_worst_first(shop_report):
    rows = re.findall(r'<tr id="policy-(P\d+)"', page(shop_report))
    assert rows == ["P03", "P02", "P01", "P04", "P05"]


def test_the_charts_are_inline_svg(shop_report):
    html = page(shop_report)
    for label in ("Pass rate against challenge level", "Pass rate per category", "Coverage per flow",
                  "Policy graph with the strongly linked pairs"):
        assert f'aria-label="{label}"' in html


def test_facts_populate_gave_up_are_listed_on_the_dialog_card_and_in_report_json(shop_report):
    html = page(shop_report)
    s003 = html.split('id="dialog-S003"')[1].split("</details>")[0]
    assert "Facts given up" in s003 and f"<li>{escape(GIVEN_UP)}</li>" in s003
    assert "Facts given up" not in html.split('id="dialog-S002"')[1].split("</details>")[0]
    report = shop_report[0].report
    assert next(d for d in report.dialogs if d.id == "S003").given_up == [GIVEN_UP]
