"""The form on each dialog card of report.html with which a person labels the dialog: each of its policies held or
broken, whether its simulated user was at fault and how, and a note; "Copy label lines" puts the lines for
labels.jsonl (`artifacts.labels.Label`) on the clipboard, and shows them for a browser that allows no copying.

The form shows nothing of the report's own verdicts, so that a label is the person's reading, not the judge's
taken over. Each card holds only a button with the dialog's id, digest and policies; the form is one template on
the page, which the page's script fills in for the dialog when the button is pressed.
"""

from __future__ import annotations

from html import escape

from intellagent.artifacts import FAULT_LABELS, Analysis


def label_button(analysis: Analysis, policies: list[str]) -> str:
    """A dialog card's button that opens its label form."""
    return (f'<div class="label-form"><button type="button" class="label-open" data-dialog="{escape(analysis.id)}" '
            f'data-digest="{escape(analysis.source)}" data-policies="{escape(" ".join(policies))}">'
            "Label this dialog</button></div>")


def label_template() -> str:
    """The form, once per page: a policy row (copied for each of the dialog's policies), the user's fault and its
    kinds, a note, and the copy button with the box its lines are shown in."""
    kinds = "".join(f'<label><input type="checkbox" name="fault" value="{escape(kind)}"> {escape(words)}</label> '
                    for kind, words in FAULT_LABELS.items())
    return (
        '<template id="label-template"><form class="label-lines-form"><h4>Your label</h4>'
        '<p class="hint">Read the dialog, then say what you saw; leave a question unanswered if you did not read '
        "it. The lines go in labels.jsonl (see --labels).</p>"
        '<table class="compact"><tbody><tr class="label-policy"><td class="label-policy-id"></td><td>'
        '<select name="verdict"><option value="">not labelled</option><option value="held">held</option>'
        '<option value="broken">broken</option></select></td></tr></tbody></table>'
        '<p><label>Simulated user at fault <select name="user"><option value="">not labelled</option>'
        '<option value="no">no</option><option value="yes">yes</option></select></label></p>'
        f'<p class="label-faults">{kinds}</p>'
        '<p><label>Note <input type="text" name="note" size="60"></label></p>'
        '<p><button type="button" class="label-copy">Copy label lines</button></p>'
        '<textarea class="label-lines" rows="4" cols="100" readonly hidden></textarea></form></template>'
    )
