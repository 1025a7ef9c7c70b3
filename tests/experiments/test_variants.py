"""Variants files: designers' named variants, checked when read and usable wherever a variant name is."""

from __future__ import annotations

from pathlib import Path

import pytest

from boardlab.experiments import variants
from boardlab.experiments.run import RunSpec


@pytest.fixture(autouse=True)
def no_loaded_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(variants, "_loaded", {})  # variants read by one test stay out of the others


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "variants.toml"
    path.write_text(text)
    return path


def test_a_loaded_variant_sets_its_knobs_in_a_run_spec(tmp_path: Path) -> None:
    variants.load(write(tmp_path, "[pantolino.wide]\ndice = 5\ntoken_values = [2, 3, 5]\nescaping_boots = true\n"))
    spec = RunSpec("pantolino", ("greedy", "greedy"), 10, variant="wide")
    assert spec.params.token_values == (2, 3, 5) and spec.params.escaping_boots
    assert dict(spec.variant_sets) == {"dice": "5", "token_values": "2,3,5", "escaping_boots": "true"}
    assert "wide" in variants.names("pantolino")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[pantolin.x]\ndice = 5\n", "did you mean 'pantolino'"),
        ("[pantolino.x]\ndie = 5\n", "did you mean 'dice'"),
        ("[pantolino.x]\ndice = 9\n", "out of range"),
        ("[pantolino.no-jokers]\ndice = 5\n", "shadows"),
        ("[pantolino]\ndice = 5\n", "one table per variant"),
        ("[pantolino.x\n", "not valid TOML"),
    ],
)
def test_a_bad_file_is_refused_naming_file_and_problem(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(variants.VariantsError, match=message):
        variants.read(write(tmp_path, text))


def test_render_round_trips_through_read(tmp_path: Path) -> None:
    text = variants.render("pantolino", {"mine": {"rolls": "4", "token_values": "1,2,3"}}, {"mine": "why"})
    assert text.startswith("# why")
    assert variants.read(write(tmp_path, text)) == {"pantolino": {"mine": {"rolls": "4", "token_values": "1,2,3"}}}


def test_an_unknown_variant_suggests_the_closest_name() -> None:
    with pytest.raises(ValueError, match="did you mean 'no-jokers'"):
        RunSpec("pantolino", ("greedy", "greedy"), 10, variant="no-joker")
