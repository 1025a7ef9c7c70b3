"""The book's wording of numbers (analysis/wording.py)."""

from __future__ import annotations

from boardlab.analysis import wording


def test_rates_and_differences_carry_their_intervals() -> None:
    assert wording.pct(0.642, 0.627, 0.657) == "64.2% (62.7–65.7)"
    assert wording.pct(0.0012, 0.0005, 0.0031) == "0.12% (0.05–0.31)"
    assert wording.interval(23.39, 23.1, 23.82, 2) == "23.39 (23.10–23.82)"
    assert wording.points(0.031, 0.012, 0.05) == "+3.1 (+1.2 to +5.0)"


def test_a_p_value_reads_alike_in_a_cell_and_in_a_sentence() -> None:
    assert [wording.p_value(p) for p in (0.00004, 0.001, 0.0421)] == ["< 0.001", "0.001", "0.042"]
    assert [wording.p_clause(p) for p in (0.00004, 0.0421)] == ["p < 0.001", "p = 0.042"]


def test_counts_are_plural_but_for_one() -> None:
    assert [wording.count(n, "game") for n in (1, 5000)] == ["1 game", "5,000 games"]


def test_command_line_p_values_keep_three_figures_and_never_print_as_zero() -> None:
    assert wording.p_figures(0.0) == "< 1e-12" and wording.p_figures(1e-15) == "< 1e-12"
    assert wording.p_figures(0.0123456) == "0.0123" and wording.p_figures(float("nan")) == "n/a"
