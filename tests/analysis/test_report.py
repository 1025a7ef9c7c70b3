"""The Pantolino report builds at a small n, reads back with the expected pages, and builds reproducibly."""

from __future__ import annotations

import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from experiments.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def two_builds(tmp_path_factory):
    folder = tmp_path_factory.mktemp("report")
    paths = []
    for name in ("a.pdf", "b.pdf"):
        result = runner.invoke(
            app,
            ["report", "pantolino", "-n", "1000", "--jobs", "2", "--quiet", "--out", str(folder / name)],
            env={"SOURCE_DATE_EPOCH": "1767225600"},
        )
        assert result.exit_code == 0, result.output
        paths.append(folder / name)
    return paths, result.stdout


def test_report_has_a_front_page_and_one_page_per_question(two_builds) -> None:
    (path, _), stdout = two_builds
    reader = PdfReader(path)
    texts = [page.extract_text() for page in reader.pages]
    assert len(texts) == 8
    for word in ("seed", "2026", "knobs", "policies", "date", "2026-01-01", "boardlab"):
        assert word in texts[0], word
    assert "is the best policy" in texts[1] and "regret vs turn-optimal" in texts[1]
    assert "Keeping jokers wins" in texts[2] and "joker face" in texts[2]
    assert "Escaping boots" in texts[3] and "comeback" in texts[3]
    assert "Removing a token" in texts[4]
    assert "first player wins" in texts[5]
    assert "Skill matters" in texts[6] and "Luck share" in texts[6] and "policies: random" in texts[6]
    assert "Balance: first_seat_advantage is" in texts[7] and "comes closest to 0" in texts[7]
    assert "report:" in stdout and stdout.count("\n- ") == 6


def test_builds_with_source_date_epoch_are_byte_identical(two_builds) -> None:
    (a, b), _ = two_builds
    assert a.read_bytes() == b.read_bytes()


def test_study_report_and_unknown_targets(tmp_path) -> None:
    result = runner.invoke(
        app,
        ["report", "pantolino-seat-advantage", "-n", "500", "--jobs", "1", "--quiet", "--out", str(tmp_path / "s.pdf")],
    )
    assert result.exit_code == 0, result.output
    assert len(PdfReader(tmp_path / "s.pdf").pages) == 2
    bad = runner.invoke(app, ["report", "pantolino-seat", "--quiet"])
    assert bad.exit_code == 2 and "did you mean 'pantolino-seat-advantage'" in bad.stderr
    assert runner.invoke(app, ["report", "pantolino", "--precision", "0.7"]).exit_code == 2
