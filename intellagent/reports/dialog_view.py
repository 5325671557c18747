"""The report's dialog cards: scenario, expected behaviour, verdict and the full transcript.

Everything shown here was written by a model or by the chatbot under test, so every piece of text
goes through `escape` and lands in an element as text: markup in a chatbot answer stays visible
as characters and never runs.
"""

from __future__ import annotations

import json
from html import escape

from intellagent.artifacts import (
    FAULT_LABELS,
    Analysis,
    Dialog,
    Message,
    PolicyCatalog,
    ToolCall,
    UserFault,
    Violation,
)
from intellagent.reports.fault_attribution import found_by
from intellagent.reports.inputs import RunArtifacts
from intellagent.reports.label_form import label_button
from intellagent.reports.outcome_view import outcome_panel
from intellagent.reports.text import one_line
from intellagent.reports.verdicts import ruled_policies


def dialog_cards(artifacts: RunArtifacts, analyses: dict[str, Analysis]) -> str:
    """One collapsible card per dialog, in id order."""
    return "".join(dialog_card(d, analyses[d.id], artifacts) for d in artifacts.dialogs)


def dialog_card(dialog: Dialog, analysis: Analysis, artifacts: RunArtifacts, *, opened: bool = False) -> str:
    """The card of one dialog: a summary line that opens onto everything about it (`opened`: shown open)."""
    catalog = artifacts.catalog
    violated = {v.policy for v in analysis.violations}
    chips = "".join(_policy_chip(pid, catalog, violated, set(analysis.tested))
                    for pid in ruled_policies(dialog, catalog))
    # A user_fault dialog is headed by the fault that set it apart, not by a violation that no longer counts.
    kept_out = analysis.status == "user_fault"
    headline = (analysis.violations[0].reason if analysis.violations and not kept_out
                else analysis.error or dialog.reason)
    persona = persona_chip(dialog.persona.name, adversarial=dialog.persona.adversarial) if dialog.persona else ""
    summary = (
        f'<summary><span class="badge {analysis.status}">{analysis.status.replace("_", " ")}</span>'
        f'<span class="did">{escape(dialog.id)}</span>{persona}'
        f'<span class="challenge" title="challenge score">◆ {dialog.challenge}</span>'
        f'<span class="chips">{chips}</span>'
        f'<span class="gist">{escape(one_line(headline, 140))}</span></summary>'
    )
    return (
        f'<details class="dialog"{" open" if opened else ""} id="dialog-{escape(dialog.id)}" '
        f'data-status="{analysis.status}">{summary}'
        f'<div class="dialog-body"><div class="dialog-facts">{_situation(dialog, artifacts)}'
        f"{_verdict(dialog, analysis, catalog)}</div>{label_button(analysis, ruled_policies(dialog, catalog))}"
        f"{outcome_panel(dialog, artifacts.event(dialog.event_id), kept_out=kept_out)}"
        f'<h4>Transcript</h4><ol class="transcript">{_transcript(dialog, analysis)}</ol></div></details>'
    )


def _policy_chip(pid: str, catalog: PolicyCatalog, violated: set[str], tested: set[str]) -> str:
    state = "violated" if pid in violated else "tested" if pid in tested else "untested"
    title = f"{pid} ({state}): {_policy_text(catalog, pid)}"
    return f'<span class="chip {state}" title="{escape(title)}">{escape(pid)}</span>'


def _situation(dialog: Dialog, artifacts: RunArtifacts) -> str:
    event, scenario = artifacts.event(dialog.event_id), artifacts.scenario(dialog.event_id)
    described = (event.scenario if event and event.scenario else scenario.description if scenario else "")
    expected = (event.expected_behaviour if event and event.expected_behaviour
                else scenario.expected_behaviour if scenario else "")
    given_up = ""
    if event and event.dropped:
        items = "".join(f"<li>{escape(note)}</li>" for note in event.dropped)
        given_up = (f'<h4>Facts given up</h4><p class="prose">No valid database could hold these, so the dialog '
                    f'ran without them:</p><ul class="given-up">{items}</ul>')
    return (
        f'<section><h4>Scenario</h4><p class="prose">{escape(described) or "<em>not recorded</em>"}</p>'
        f'<h4>Expected behaviour</h4><p class="prose">{escape(expected) or "<em>not recorded</em>"}</p>'
        f"{_user(dialog)}{given_up}</section>"
    )


def _user(dialog: Dialog) -> str:
    """Who the user was: its persona, and the false claim it made against the records; and what was planted in the
    records the chatbot read."""
    persona, planted = dialog.persona, _planted(dialog)
    if persona is None:
        return planted
    claim = dialog.claim
    claimed = (f'<p class="prose">Claimed that {escape(claim.statement)}; {escape(claim.contradiction())}.</p>'
               if claim else "")
    return (f"<h4>User</h4><p class=\"prose\">{persona_chip(persona.name, adversarial=persona.adversarial)} "
            f"{escape(persona.description)}</p>{claimed}{planted}")


def _planted(dialog: Dialog) -> str:
    """The instruction the red team planted in a record the chatbot read, and where (nothing if none was)."""
    planted = dialog.planted
    if planted is None:
        return ""
    return (f'<h4>Planted in the data</h4><p class="prose">In {escape(planted.where())}, which the chatbot reads with '
            f'its tools:</p><code class="evidence">{escape(planted.instruction)}</code>')


def _verdict(dialog: Dialog, analysis: Analysis, catalog: PolicyCatalog) -> str:
    parts = [f'<section class="verdict {analysis.status}"><h4>Verdict: {analysis.status.replace("_", " ")}</h4>']
    if analysis.error:
        parts.append(f'<p class="prose">{escape(analysis.error)}</p>')
    if analysis.status == "user_fault" and analysis.violations:
        parts.append('<p class="sim">The breaches below are listed and counted in no figure: the fault came before '
                     "the chatbot's work on the request ended, and a pass with such a fault is set aside too.</p>")
    if analysis.judge_error and analysis.judge_error != analysis.error:
        parts.append(f'<p class="prose">The judge gave no verdict ({escape(analysis.judge_error)}); the simulation\'s '
                     "verdict and the checks' findings stand.</p>")
    if analysis.violations:
        items = "".join(_violation(dialog, v, catalog, disputed=v.policy in analysis.disputed)
                        for v in analysis.violations)
        parts.append(f'<ul class="violations">{items}</ul>')
    elif analysis.status == "pass":
        tested = ", ".join(analysis.tested) or "none named"
        parts.append(f'<p class="prose">No policy broken. Tested: {escape(tested)}.</p>')
    parts.append(f'<p class="sim">Simulation: <b>{escape(dialog.status)}</b> after {dialog.turns} user turns. '
                 f"{escape(dialog.reason)}</p>")
    parts.append(_user_faults(dialog))
    for exchange in dialog.critiques:
        parts.append(
            f'<p class="sim">Critique at turn {exchange.turn}: user said <b>{exchange.verdict}</b> '
            f"({escape(exchange.reason)}); {exchange.outcome}"
            + (f": {escape(exchange.feedback)}" if exchange.feedback else "") + "</p>"
        )
    parts.append("</section>")
    return "".join(parts)


def _user_faults(dialog: Dialog) -> str:
    """What the dialog's simulated user did wrong, each fault with its turn, evidence and who found it."""
    if dialog.audit is None or not dialog.audit.faults:
        return ""
    items = "".join(
        f'<li><span class="chip user_fault">{escape(FAULT_LABELS[fault.kind])}</span> '
        f'<span class="tag">{escape(found_by(fault))}</span> <span class="why">'
        f'<a href="#turn-{escape(dialog.id)}-{fault.turn}">turn {fault.turn}</a>: {escape(fault.evidence)}'
        f"{_reading(fault)}</span></li>"
        for fault in dialog.audit.faults
    )
    return f'<h4>Simulated user\'s faults</h4><ul class="violations">{items}</ul>'


def _reading(fault: UserFault) -> str:
    """What the critique model said of a program's fault, when it was asked."""
    return f" (the critique: {escape(fault.reading)})" if fault.reading else ""


def _violation(dialog: Dialog, violation: Violation, catalog: PolicyCatalog, *, disputed: bool) -> str:
    """One violation: the policy, who found it, where, why, and the call or row at fault."""
    where = (f'<a href="#turn-{escape(dialog.id)}-{violation.turn}">turn {violation.turn}</a>: '
             if violation.turn is not None else "")
    found = (f'<span class="tag check">check {escape(violation.check or "")}</span>' if violation.source == "check"
             else f'<span class="tag {violation.source}">{violation.source}</span>')
    if disputed:
        found += (' <span class="tag disputed" title="the judge disagrees with a check or the outcome on this policy">'
                  "disputed</span>")
    evidence = violation.call or violation.row
    shown = f'<code class="evidence">{escape(evidence)}</code>' if evidence else ""
    return (f'<li><a class="chip violated" href="#policy-{escape(violation.policy)}">{escape(violation.policy)}</a> '
            f'{found} <span class="rule">{escape(_policy_text(catalog, violation.policy))}</span>'
            f'<span class="why">{where}{escape(violation.reason)}</span>{shown}</li>')


def _transcript(dialog: Dialog, analysis: Analysis) -> str:
    flagged: dict[int, list[str]] = {}
    for violation in analysis.violations:
        marked = flagged.setdefault(violation.turn, []) if violation.turn is not None else []
        if violation.policy not in marked:  # the same breach found by a check and the judge is marked once
            marked.append(violation.policy)
    faulted: dict[int, list[str]] = {}
    for fault in dialog.audit.faults if dialog.audit else []:
        faulted.setdefault(fault.turn, []).append(FAULT_LABELS[fault.kind])
    return "".join(_message(dialog.id, turn, m, flagged.get(turn, []), faulted.get(turn, []))
                   for turn, m in enumerate(dialog.transcript))


def _message(dialog_id: str, turn: int, message: Message, violates: list[str], faults: list[str]) -> str:
    calls = "".join(_tool_call(call) for call in message.tool_calls)
    thought = (f'<div class="thought"><span>thinks</span> {escape(message.thought)}</div>'
               if message.thought else "")
    flag = "".join(f'<span class="chip violated">breaks {escape(pid)}</span>' for pid in violates)
    flag += "".join(f'<span class="chip user_fault">{escape(fault)}</span>' for fault in faults)
    css = f"msg {message.role}" + (" flagged" if violates else "") + (" faulted" if faults else "")
    return (
        f'<li class="{css}" id="turn-{escape(dialog_id)}-{turn}">{calls}{thought}'
        f'<div class="bubble"><div class="who">{message.role} <span class="turn">#{turn}</span> {flag}</div>'
        f'<div class="text">{escape(message.content)}</div>{_moves(message)}</div></li>'
    )


def _moves(message: Message) -> str:
    """The persona's moves in a user message: the words it scripted, and whether the framework added them."""
    return "".join(
        f'<span class="played"><span class="tag move{" added" if move.injected else ""}">'
        f'{"added" if move.injected else "made"} by persona {escape(move.persona)}</span> '
        f"{escape(one_line(move.text, 200))}</span>"
        for move in message.moves
    )


def _tool_call(call: ToolCall) -> str:
    arguments = json.dumps(call.arguments, ensure_ascii=False, indent=1, sort_keys=True)
    result = "" if call.result is None else f'<pre class="result">{escape(call.result)}</pre>'
    if call.reported:  # the chatbot only said it made the call
        kind = ('<div class="tool reported"><div class="call" title="the chatbot reported this call itself; it did '
                'not run on the dialog\'s world, so nothing checked it"><span>reported tool</span>')
    elif (call.result or "").startswith("Error"):  # the tools' way to refuse or fail: drawn as a failure
        kind = '<div class="tool failed"><div class="call"><span>tool error</span>'
    else:
        kind = '<div class="tool"><div class="call"><span>tool</span>'
    return f'{kind} <code>{escape(call.name)}</code></div><pre class="args">{escape(arguments)}</pre>{result}</div>'



def _policy_text(catalog: PolicyCatalog, pid: str) -> str:
    return next((p.text for p in catalog.policies if p.id == pid), "")


def persona_chip(name: str, *, adversarial: bool) -> str:
    """A persona's name as a chip, marked when it is adversarial."""
    css = "persona adversarial" if adversarial else "persona"
    return f'<span class="chip {css}" title="the user\'s persona">{escape(name)}</span>'
