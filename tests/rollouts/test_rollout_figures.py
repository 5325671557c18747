"""The report's figures of the rollouts: per policy and flow, the best path against the plain dialog, the cost."""

from __future__ import annotations

from intellagent.artifacts import Flow, Policy, PolicyCatalog, Rollout
from intellagent.artifacts.run_report import RolloutFigures
from intellagent.reports.sections.rollout_figures import rollout_figures, rollouts_line, rollouts_panel

CATALOG = PolicyCatalog(
    task_description="A desk.", flows=[Flow(id="F1", name="Cancel"), Flow(id="F2", name="Refund")],
    policies=[Policy(id="P1", text="Ask before cancelling.", flows=["F1"], category="user_consent", challenge=2),
              Policy(id="P2", text="Refund to the original method.", flows=["F2"], category="payment", challenge=3)])


def searched(event_id: str, policies: list[str], *, paths: int, rewarded: int, pairs: int, best: float,
             plain: float | None, status: str = "ok", calls: int = 10, cost: float = 0.5) -> Rollout:
    return Rollout(id=event_id, status=status, policies=policies, beam=2, branch=2, max_turns=3,
                   tree=f"rollouts/{event_id}.json", paths=paths, rewarded=rewarded, pairs=pairs, best_reward=best,
                   plain_reward=plain, calls=calls, cost_usd=cost)


ROLLOUTS = [
    searched("S001", ["P1"], paths=3, rewarded=1, pairs=2, best=1.0, plain=0.0),
    searched("S002", ["P1", "P2"], paths=4, rewarded=0, pairs=0, best=0.0, plain=0.0, status="stopped"),
    Rollout(id="S003", status="skipped", reason="no expected outcome", policies=["P2"], beam=2, branch=2,
            max_turns=3),
]


def test_a_run_that_did_not_roll_out_has_no_figures() -> None:
    assert rollout_figures([], CATALOG) is None


def test_the_figures_count_paths_and_pairs_of_the_events_searched() -> None:
    figures = rollout_figures(ROLLOUTS, CATALOG)

    assert figures is not None
    assert (figures.events, figures.skipped, figures.stopped) == (2, 1, 1)
    assert (figures.paths, figures.rewarded, figures.pairs) == (7, 1, 2)
    assert (figures.calls, figures.cost_usd) == (20, 1.0)


def test_the_figures_are_kept_per_policy_and_per_flow() -> None:
    figures = rollout_figures(ROLLOUTS, CATALOG)

    assert figures is not None
    assert [(g.id, g.events, g.paths, g.rewarded, g.pairs) for g in figures.policies] == [("P1", 2, 7, 1, 2),
                                                                                         ("P2", 1, 4, 0, 0)]
    assert [(g.id, g.events, g.rewarded) for g in figures.flows] == [("F1", 2, 1), ("F2", 1, 0)]


def test_the_best_path_is_set_against_the_plain_dialog_of_the_same_events() -> None:
    figures = rollout_figures([*ROLLOUTS, searched("S004", ["P2"], paths=1, rewarded=1, pairs=0, best=1.0,
                                                   plain=None)], CATALOG)

    assert figures is not None
    assert (figures.compared, figures.best_reward, figures.plain_reward, figures.improved) == (2, 0.5, 0.0, 1)


def test_the_summary_line_says_what_the_budget_bought_and_what_it_stopped() -> None:
    figures = rollout_figures(ROLLOUTS, CATALOG)
    assert isinstance(figures, RolloutFigures)

    line = rollouts_line(figures)

    assert line.startswith("rollouts: 2 events searched, 7 paths ended, 1 positive, 2 preference pairs")
    assert "best path's reward 0.50 against the dialog's 0.00 (1 of 2 events better)" in line
    assert "20 calls, $1.00" in line and "1 event stopped by the budget" in line


def test_the_report_page_shows_the_yield_per_policy_and_per_flow() -> None:
    figures = rollout_figures(ROLLOUTS, CATALOG)
    assert figures is not None

    page = rollouts_panel(figures)

    assert "<td>P1</td><td>Ask before cancelling.</td><td>2</td><td>7</td><td>1</td><td>2</td>" in page
    assert "<td>F2</td><td>Refund</td><td>1</td><td>4</td><td>0</td><td>0</td>" in page
