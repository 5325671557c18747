"""The red team's attacks in a run: what every attack shares, each attack played and judged, what it is recorded
as, and what each rule's budget leaves.

An attack is recorded once it ends: `ok` (played to a breach or to the end of its turns and attempts), `stopped`
when its rule's budget (`red_team.budget_usd_per_rule`, over every invocation) or the run's ran out during it or
before it began (its tree keeps what was played), `skipped` when its strategy cannot be played on its event
(nothing to plant in), `error` when it could not be carried out (the chatbot failed, or the attacker could not go
on). A resumed stage attacks again what is not recorded `ok` or `skipped` under the same settings: the LLM cache
answers every request the stopped attack already made, so what it paid for costs nothing again.

When no program found a breach, the judge reads the last branch played, once, for the rule alone
(`red_team.judge`).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from intellagent.artifacts import Attack, AttackTree, Claim, Dialog, Message, PolicyCatalog, Violation
from intellagent.artifacts.dialogs import USER_CUT_SHORT
from intellagent.chatbots import Chatbot, select_chatbot
from intellagent.config import RedTeamConfig, switched_on
from intellagent.context import RunContext
from intellagent.llm import Usage
from intellagent.llm.accounting import BudgetExhausted
from intellagent.llm.dialog_models import counted, dialog_model
from intellagent.redteam.conversation_attack import AttackParts, AttackSettings, ConversationAttack
from intellagent.redteam.injection import DataAttack, NothingToPlant
from intellagent.redteam.targets import AttackTarget, attack_event, grounded_claim
from intellagent.redteam.verdict import judged_breach, program_breach
from intellagent.run_folder import RunFolder
from intellagent.simulate.control import Way, own_way
from intellagent.simulate.graders import GraderOf
from intellagent.simulate.player import DialogPlayer, PlayDialog
from intellagent.simulate.users import UserRoleOf


@dataclass(frozen=True)
class RedTeam:
    """What every attack of the stage shares, set up once, and each attack recorded.

    Attributes:
        ctx: the run.
        player: plays every attempt.
        chatbot: the chatbot under test.
        catalog: the policies, whose rules are attacked.
        settings: how long each attack may go on.
        usage: the stage's share of the run's accounting.
        way: the run's own way of playing where the user has tools.
        spent: what each rule's earlier attacks cost, by rule (the run's earlier invocations).
        rules: each rule's share of the accounting in this invocation, within its budget (made on its first attack).
    """

    ctx: RunContext
    player: DialogPlayer
    chatbot: Chatbot
    catalog: PolicyCatalog
    settings: AttackSettings
    usage: Usage
    way: Way
    spent: Mapping[str, float]
    rules: dict[str, Usage] = field(default_factory=dict)

    @classmethod
    @asynccontextmanager
    async def open(cls, ctx: RunContext, earlier: list[Attack], *, play: PlayDialog, user_role: UserRoleOf,
                   grader: GraderOf) -> AsyncIterator[RedTeam]:
        """The stage's attacks while it runs (`earlier`: attacks.jsonl as an earlier invocation left it, whose costs
        count against each rule's budget; `play`: the dialog graph; `user_role`, `grader`: the mode's, which the
        player casts and grades each attempt by)."""
        chatbot = select_chatbot(ctx)
        spent: dict[str, float] = {}
        for attack in earlier:
            spent[attack.rule] = spent.get(attack.rule, 0.0) + attack.cost_usd
        usage = Usage(parent=ctx.usage, stage="redteam")
        async with DialogPlayer.open(ctx, [chatbot], play=play, user_role=user_role, grader=grader) as player:
            yield cls(ctx=ctx, player=player, chatbot=chatbot, catalog=ctx.folder.policies.require(),
                      settings=attack_settings(ctx.config.red_team), usage=usage,
                      way=own_way(ctx.config, ctx.environment), spent=spent)

    async def attacked(self, target: AttackTarget) -> Attack:
        """The record of one attack: played and judged, skipped, or stopped by the budget (its tree is kept in
        attacks/<id>.json)."""
        if target.event is None:
            return self.recorded(target, status="skipped", reason="no event samples the rule: it was never put to the "
                                 "test, so there is nothing to attack it on")
        rule = self._rule_usage(target.rule.id)
        try:
            rule.check_budget()
        except BudgetExhausted as error:
            return self.unattacked(target, status="stopped", reason=self._why_stopped(target, error))
        usage = Usage(parent=rule)
        search = await self._search(target, usage)
        status, reason = "ok", ""
        try:
            tree = await search.run()
            await self._judged(tree, usage)
        except NothingToPlant as error:
            return self.recorded(target, status="skipped", reason=str(error), usage=usage)
        except BudgetExhausted as error:
            tree, status, reason = search.tree, "stopped", self._why_stopped(target, error)
        self.ctx.folder.attack_trees.item(target.id).save(tree)
        way = search.way_played if isinstance(search, ConversationAttack) else "data"
        return self.recorded(target, status=status, reason=reason, tree=tree, usage=usage, way=way)

    def unattacked(self, target: AttackTarget, *, status: str, reason: str) -> Attack:
        """The record of an attack that failed (`error`) or never began (`stopped`: the budget was spent)."""
        return self.recorded(target, status=status, reason=reason)

    def recorded(self, target: AttackTarget, *, status: str, reason: str = "", tree: AttackTree | None = None,
                 usage: Usage | None = None, way: str | None = None) -> Attack:
        """The record of an attack, with its tree's figures when it has one."""
        settings = self.settings
        limit = settings.plantings if target.strategy.through == "data" else settings.max_attempts
        attack = Attack(id=target.id, status=status, reason=reason, rule=target.rule.id,  # type: ignore[arg-type]
                        strategy=target.strategy.name, event=target.event.id if target.event else "",
                        way=way,  # type: ignore[arg-type]
                        max_turns=settings.max_turns, max_attempts=limit)
        if usage is not None:
            total = usage.total
            attack.calls, attack.cost_usd = total.calls, total.cost_usd
        if tree is None:
            return attack
        attack.tree = RunFolder.attack_trees.stored(target.id)
        return with_figures(attack, tree)

    async def _search(self, target: AttackTarget, usage: Usage) -> ConversationAttack | DataAttack:
        """The attack's search, through the conversation or through the data."""
        event = target.event
        assert event is not None  # an attack with no event is never searched
        expected = event.expected

        def verdict(dialog: Dialog) -> list[Violation]:
            return program_breach(dialog, target.rule.id, self.catalog, expected)

        config = self.ctx.config.red_team
        parts = AttackParts(chatbot=self.chatbot, player=self.player, settings=self.settings, usage=usage, way=self.way,
                            verdict=verdict)
        if target.strategy.through == "data":
            planter = counted(dialog_model(self.ctx.llms["attacker"], seed=self.ctx.config.seed, dialog_id=target.id),
                              usage)
            return DataAttack(attack=target.id, event=event.model_copy(update={"attack": target.brief(config)}),
                              parts=parts, planter=planter, fields=config.plant_in)
        return ConversationAttack(attack=target.id, event=attack_event(target, config, self._claim(target)),
                                  parts=parts)

    def _claim(self, target: AttackTarget) -> Claim | None:
        """The false claim a `false_facts` attacker makes: the event's own, or one grounded in its world."""
        event = target.event
        if target.strategy.name != "false_facts" or event is None:
            return None
        if event.claim is not None:
            return event.claim
        rules = "\n".join(policy.text for policy in self.catalog.policies if policy.id in event.policies)
        return grounded_claim(self.ctx.environment, self.ctx.folder.path(event.database or ""), event, rules)

    async def _judged(self, tree: AttackTree, usage: Usage) -> None:
        """The judge's reading of the last branch, for the rule alone, where no program found a breach (and the run
        asks for it): its violation is added to the last attempt."""
        if tree.dialog is None or any(attempt.breach for attempt in tree.attempts) or not tree.attempts:
            return
        config = self.ctx.config
        if not switched_on(config.red_team.judge, self.ctx.llms.spec("analysis").provider):
            return
        judge = counted(self.ctx.llms["analysis"], usage)
        tree.attempts[-1].breach = await judged_breach(judge, tree.dialog, tree.rule, self.catalog)

    def _rule_usage(self, rule: str) -> Usage:
        """The rule's share of the accounting, within what its budget leaves."""
        if rule not in self.rules:
            left = max(0.0, self.ctx.config.red_team.budget_usd_per_rule - self.spent.get(rule, 0.0))
            self.rules[rule] = Usage(parent=self.usage, max_cost_usd=left)
        return self.rules[rule]

    def _why_stopped(self, target: AttackTarget, error: BudgetExhausted) -> str:
        """What stopped an attack: the run's --max-cost, or its rule's budget."""
        if self.ctx.usage.exhausted():
            return str(error)
        budget = self.ctx.config.red_team.budget_usd_per_rule
        return (f"the budget of ${budget:.2f} for the attacks on {target.rule.id} is spent; raise "
                "red_team.budget_usd_per_rule and run again to resume")


def attack_settings(config: RedTeamConfig) -> AttackSettings:
    """How long each attack may go on, from the config."""
    return AttackSettings(max_turns=config.max_turns, max_attempts=config.max_attempts, plantings=config.plantings)


def with_figures(attack: Attack, tree: AttackTree) -> Attack:
    """The record with what its tree says: the breach and who found it, the attempts, the rolled-back ones, the
    first breach; an attack whose last dialog failed without a breach is an `error`."""
    attempts = [attempt for attempt in tree.attempts if attempt.id != "0"]
    breached = next((attempt for attempt in attempts if attempt.breach), None)
    last = tree.attempts[-1] if tree.attempts else None
    update: dict[str, object] = {
        "attempts": _attempts(attack, tree),
        "rolled_back": sum(attempt.refused for attempt in attempts),
        "planted": breached.planted if breached else last.planted if last else None,
    }
    if breached is not None:
        update.update(breached=True, breach=breached.breach, source=_strongest(breached.breach),
                      first_breach=_first_breach(attack, tree, breached.id, breached.breach))
    elif attack.status == "ok" and last is not None and _failed(last.ended, last.reason):
        update.update(status="error", reason=f"the attack could not go on: {last.reason}")
    return attack.model_copy(update=update)


def _attempts(attack: Attack, tree: AttackTree) -> int:
    """Attempts played: chatbot turns in answer to the attacker (a straight attack's, counted in its one dialog), or
    dialogs on a planted world."""
    if attack.way == "straight" and tree.dialog is not None:
        return _replies(tree.dialog.transcript, len(tree.dialog.transcript))
    return sum(attempt.id != "0" for attempt in tree.attempts)


def _first_breach(attack: Attack, tree: AttackTree, attempt_id: str, breach: list[Violation]) -> int:
    """The attempt at which the rule first broke: its number; in a straight attack, the chatbot's reply at fault."""
    if attack.way != "straight" or tree.dialog is None:
        return int(attempt_id)
    turns = [violation.turn for violation in breach if violation.turn is not None]
    transcript = tree.dialog.transcript
    return _replies(transcript, min(turns) + 1) if turns else _replies(transcript, len(transcript))


def _replies(transcript: list[Message], end: int) -> int:
    """The chatbot's replies to a user message among the first `end` messages."""
    return sum(message.role == "chatbot" and index > 0 for index, message in enumerate(transcript[:end]))


def _strongest(breach: list[Violation]) -> str:
    """Who found a breach: the strongest source among its violations."""
    return next(source for source in ("outcome", "check", "judge") if any(v.source == source for v in breach))


def _failed(ended: str | None, reason: str) -> bool:
    """Whether a dialog ended because something failed (the chatbot, or the attacker), not by its budget."""
    return ended == "error" or reason.startswith(USER_CUT_SHORT)


def still_to_attack(targets: list[AttackTarget], recorded: Mapping[str, Attack],
                    settings: AttackSettings) -> list[AttackTarget]:
    """The attacks not recorded as finished (`ok` or `skipped`) under these settings."""
    def finished(target: AttackTarget) -> bool:
        attack = recorded.get(target.id)
        limit = settings.plantings if target.strategy.through == "data" else settings.max_attempts
        return (attack is not None and attack.status in ("ok", "skipped")
                and (attack.max_turns, attack.max_attempts) == (settings.max_turns, limit))

    return [target for target in targets if not finished(target)]

