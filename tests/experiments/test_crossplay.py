"""Cross-play (experiments/chapters/crossplay.py): a strong-play figure is stated only where a second player agrees."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from boardlab.engines.record import Handicap, Series
from boardlab.experiments import restrict as rp
from boardlab.experiments.chapters import choices, crossplay, handicap, pantolino, patolli
from boardlab.experiments.chapters.common import Plan
from boardlab.experiments.run import RunSpec
from boardlab.experiments.spec import Arm

Figure = crossplay.Figure


def fact(f: Figure) -> str:
    return "seat 0 wins more than half" if f.low > 0.5 else "seat 0 has no detectable edge"


def test_two_figures_apart_make_the_title_depend_on_who_plays_and_state_no_fact() -> None:
    figures = [Figure("between two learned players", 0.89, 0.88, 0.90), Figure("between two experts", 0.52, 0.47, 0.57)]
    title = crossplay.claim("seat 0's share", figures, fact)
    assert title.startswith("seat 0's share depends on who plays: 89.0% (88.0–90.0) between two learned players")
    assert "52.0% (47.0–57.0) between two experts" in title and "wins more than half" not in title
    assert not crossplay.holds(figures)


def test_two_agreeing_figures_state_the_fact_and_say_it_holds_under_both() -> None:
    figures = [Figure("learned", 0.51, 0.50, 0.52), Figure("expert", 0.49, 0.45, 0.53)]
    assert crossplay.claim("seat 0's share", figures, fact) == (
        "seat 0 has no detectable edge: holds under both strong players (51.0% (50.0–52.0) learned, "
        "49.0% (45.0–53.0) expert)"
    )
    # agreeing intervals but different facts (one clears 50%, one does not) still state none
    split = [Figure("learned", 0.56, 0.53, 0.59), Figure("expert", 0.52, 0.49, 0.55)]
    assert "depends on who plays" in crossplay.claim("seat 0's share", split, fact)
    assert "support different answers, so the page states neither" in crossplay.note(split, fact)
    assert "agree: their 95% intervals overlap and support the same answer" in crossplay.note(figures, fact)


def test_the_cross_arms_replace_every_learned_seat_and_add_both_mixed_seatings() -> None:
    plan = Plan("patolli")
    labels = crossplay.add_arms(plan, ["learned", "learned"], 20_000, 1, 400, check=crossplay.Check(with_mixed=True))
    other = crossplay.second("patolli")
    assert [a.spec.seats for a in plan.arms] == [(other, other), ("learned", other), (other, "learned")]
    assert {a.spec.n_games for a in plan.arms} == {20_000 // crossplay.SHARE} and labels == [a.label for a in plan.arms]
    assert crossplay.add_arms(Plan("patolli"), ["balanced"] * 2, 100, 1, 10) == []  # nothing strong to check
    assert crossplay.second("cargolino") is None  # no expert affordable in a report: pages say "not checked"


def _summary(n: int, seat0: int, first: int) -> SimpleNamespace:
    return SimpleNamespace(
        summary=SimpleNamespace(n_games=n, wins=np.array([seat0, n - seat0]), sums={"first_won": first})
    )


def _first_player_results(learned_seat0: int, expert_seat0: int) -> dict:
    results = {patolli._h2h(p, p): _summary(2000, 1000, 1010) for p in patolli.SELF_PLAY}
    results[patolli._h2h("learned", "learned")] = _summary(2000, learned_seat0, 1000)
    other = crossplay.second("patolli")
    results[crossplay.label([other, other])] = _summary(1000, expert_seat0, 500)
    return results


@pytest.mark.parametrize(
    ("learned", "expert", "expected"),
    [
        (1780, 520, "seat 0's share depends on who plays: 89.0%"),  # the self-play artefact of issue 57
        (1010, 495, "seat 0 has no detectable edge: holds under both strong players (50.5%"),
    ],
)
def test_patolli_s_first_player_page_states_only_what_holds_under_both(learned, expert, expected) -> None:
    page, title = patolli.first_player_page(_first_player_results(learned, expert))
    assert expected in title and "marker order decides" not in title
    assert crossplay.second("patolli") in set(page.table["both seats play"])  # the second figure beside the first
    assert any(n.startswith("Cross-play") for n in page.notes)


def _handicap_frame(expert_edges: list[float]) -> tuple[pd.DataFrame, Series, Series]:
    series = Series("learned", "learned", (0, 4, 8))
    twin = Series("learned, checked by expert:32", "expert:32", (0, 4, 8))
    rows = [("learned", h, e) for h, e in zip((0, 4, 8), (0.39, 0.2, 0.01), strict=True)]
    rows += [(twin.name, h, e) for h, e in zip((0, 4, 8), expert_edges, strict=True)]
    frame = pd.DataFrame([{"play": p, "h": h, "edge": e, "low": e - 0.03, "high": e + 0.03} for p, h, e in rows])
    return frame, series, twin


def test_the_head_start_page_names_a_fair_value_only_when_the_expert_agrees() -> None:
    cap = Handicap("head_start", "token", "gives", (), "0..20")
    frame, series, twin = _handicap_frame([0.01, -0.2, -0.4])
    text = handicap.cross_answer(frame, cap, series, twin)
    assert "the fair head start depends on who plays" in text and "learned comes closest to fair at 8" in text
    frame, series, twin = _handicap_frame([0.38, 0.21, 0.0])
    text = handicap.cross_answer(frame, cap, series, twin)
    assert text.startswith("learned: a 8-token head start") and "holds under both strong players" in text


def _choices(cost: float) -> rp.Choices:
    rows = [
        {"policy": "greedy", "kind": "heuristic", "restriction": "", "does": "plays greedy", "cost": 0.2,
         "cost_lo": 0.19, "cost_hi": 0.21, "verdict": "costs", "simplicity": 0, "games": 100},
        {"policy": "learned!never-x", "kind": "restriction", "restriction": "never-x", "does": "never takes x",
         "cost": cost, "cost_lo": cost - 0.01, "cost_hi": cost + 0.01, "verdict": rp.verdict(cost, cost - 0.01,
         cost + 0.01), "simplicity": 1, "games": 100},
    ]  # fmt: skip
    return rp.Choices("patolli", 2, "learned", pd.DataFrame(rows), [], {})


def test_the_dominant_strategy_is_a_rule_in_words_checked_under_the_second_player() -> None:
    result = _choices(0.0)
    agrees = {"never-x": Figure("under expert:32", 0.005, -0.03, 0.04)}
    costs = {"never-x": Figure("under expert:32", 0.15, 0.11, 0.19)}
    text = choices.dominant_text(result, agrees)
    assert text.startswith("Yes: ") and "a player who never takes x" in text and "holds under both" in text
    assert "learned!" not in text and "each rule also against expert:32" in text
    text = choices.dominant_text(result, costs)
    assert text.startswith("It depends on who plays") and "learned!" not in text
    row = result.restrictions().to_dict(orient="records")[0]
    assert "holds under both" in choices.checked_finding(row, agrees["never-x"], result)  # never needed, twice
    assert "depends on who plays" in choices.checked_finding(row, costs["never-x"], result)


@pytest.fixture(scope="module")
def patolli_results() -> dict:
    """Every arm of Patolli's strong-play pages and of its front page's strength line, all one tiny real run."""
    from boardlab.experiments.chapters import skill
    from boardlab.experiments.chapters.common import local_play

    plan = Plan("patolli")
    for add in (patolli._strong_play, patolli._readings, patolli._first_player_arms, skill.add_arms):
        add(plan, 400, 3, 20)
    (one,) = local_play()([Arm("one", RunSpec("patolli", ("learned",) * 2, 20, 3, chunk_size=20))])
    return {arm.label: one for arm in plan.arms}


@pytest.mark.parametrize("page", [patolli.bankruptcy_page, patolli.length_page, patolli.variants_page])
def test_patolli_s_bankruptcy_length_and_readings_quote_the_second_strong_player_beside_learned(
    patolli_results, page
) -> None:
    other = crossplay.second("patolli")
    _, title = page(patolli_results)
    assert f"two {other} players" in title and "not checked" not in title
    without = {k: v for k, v in patolli_results.items() if not k.startswith(crossplay.LABEL)}
    made, title = page(without)
    assert "not checked under a second strong player" in title and f"two {other}" not in title
    assert any("Measured under learned only" in n for n in made.notes)


def test_patolli_s_readings_play_the_second_player_on_fewer_games() -> None:
    plan = Plan("patolli")
    patolli._readings(plan, 20_000, 1, 400)
    cross = {a.label: a.spec.n_games for a in plan.arms if a.label.startswith(crossplay.LABEL)}
    assert sorted(cross.values()) == [250, 250, 1000] and len(cross) == len(patolli.STRONG_RULES)


def test_patolli_s_front_page_quotes_learned_s_measured_share_against_the_expert(patolli_results) -> None:
    one = next(iter(patolli_results.values())).summary
    line = patolli._strength(patolli_results)
    won = int(one.wins[0] + one.wins[1])  # learned in seat 0 of one arm and seat 1 of the other: the same games
    assert f"{100 * won / (2 * one.n_games):.1f}% " in line and f"of {2 * one.n_games:,} games against" in line
    assert "56%" not in line and "in this report's games" in line


@pytest.fixture(scope="module")
def pantolino_results() -> dict:
    """Every arm of Pantolino's jokers, escaping-boots and no-token pages: one tiny real run per table size."""
    from boardlab.experiments.chapters.common import local_play

    plan = Plan("pantolino")
    for add in (pantolino._jokers, pantolino._modes, pantolino._no_token, pantolino._seats):
        add(plan, 400, 3, 20)
    sizes = sorted({len(arm.spec.seats) for arm in plan.arms})
    played = local_play()([Arm(f"{k}", RunSpec("pantolino", ("random",) * k, 10, 3, chunk_size=10)) for k in sizes])
    one = dict(zip(sizes, played, strict=True))
    return {arm.label: one[len(arm.spec.seats)] for arm in plan.arms}


@pytest.mark.parametrize("page", [pantolino.joker_page, pantolino.escaping_page, pantolino.no_token_page])
def test_pantolino_s_strong_rows_quote_the_second_strong_player_beside_them(pantolino_results, page) -> None:
    from boardlab.engines.pantolino import Params

    other = crossplay.second("pantolino")
    made, title = page(pantolino_results, Params(), 3)
    assert other in title and "not checked" not in title
    assert other in made.table.to_string() and any(n.startswith("Cross-play") for n in made.notes)
    without = {k: v for k, v in pantolino_results.items() if not k.startswith(crossplay.LABEL)}
    made, title = page(without, Params(), 3)
    assert "not checked under a second strong player" in title and other not in made.table.to_string()


def test_pantolino_s_secondary_cross_arms_play_a_quarter_of_the_headline_s() -> None:
    plan = Plan("pantolino")
    for add in (pantolino._jokers, pantolino._modes, pantolino._no_token, pantolino._seats):
        add(plan, 20_000, 1, 400)
    cross = [a for a in plan.arms if a.label.startswith(crossplay.LABEL)]
    headline = crossplay.label([crossplay.second("pantolino")] * 2)  # the seats page's, shared with the no-token's
    assert sorted(a.spec.n_games for a in cross if a.label != headline) == [125] * 4 + [250] * 3
    assert len(cross) == 2 + 4 + 2  # the default joker faces in both seatings; the gaps' four; the no-token's two
    assert next(a for a in cross if a.label == headline).spec.n_games == 1000


def test_panots_s_seat_page_checks_its_two_player_tables_and_the_faces_page_says_it_is_not_checked() -> None:
    from boardlab.experiments.chapters import panots
    from boardlab.experiments.chapters.common import local_play

    plan = Plan("panots")
    panots._seats(plan, 400, 3, 20)
    panots._everyone(plan, 400, 3, 20, (panots.STRONG, panots.BASE), (4,))
    other = crossplay.second("panots")
    cross = [a for a in plan.arms if a.label.startswith(crossplay.LABEL)]
    assert [a.spec.seats for a in cross] == [(other, other)] * 2 and {a.spec.n_games for a in cross} == {4}
    sizes = sorted({len(arm.spec.seats) for arm in plan.arms})
    played = local_play()([Arm(f"{k}", RunSpec("panots", ("greedy",) * k, 4, 3, chunk_size=4)) for k in sizes])
    one = dict(zip(sizes, played, strict=True))
    results = {arm.label: one[len(arm.spec.seats)] for arm in plan.arms}
    page, title = panots.seat_page(results)
    assert f"everyone {other} (they agree)" in title and "not checked under a second strong player at 4" in title
    assert (page.table[f"seat 0 wins ({other})"] != "—").sum() == 2  # the 2-player rows, both grab orders
    _, title = panots.seat_page({k: v for k, v in results.items() if k not in {a.label for a in cross}})
    assert "everyone planner (not checked under a second strong player)" in title
    page, title = panots.faces_page(results)
    assert "not checked under a second strong player" in title and page.notes[-1].startswith("Not checked")
