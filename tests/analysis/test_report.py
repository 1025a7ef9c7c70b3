"""The Pantolino report builds at a small n: its pages, front page, bookmarks, links, HTML twin, reproducibility."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from pypdf import PdfReader
from typer.testing import CliRunner

from boardlab.experiments.cli import app
from tests.analysis import browser
from tests.analysis.helpers import fewest_expert_games
from tests.analysis.layout import checked_drawing

runner = CliRunner()
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
FIGURES = 12  # the figures of the 13 pages (the front page and the dominant-strategy page have none; one has two)
LINKS_AND_FIGURES = """(() => {
  const ids = new Set(Array.from(document.querySelectorAll('[id]'), e => e.id));
  const links = Array.from(document.querySelectorAll('a[href]'), a => a.getAttribute('href'));
  return {
    images: document.images.length,
    loaded: Array.from(document.images).filter(i => i.complete && i.naturalWidth > 0).length,
    links: links.length,
    broken: links.filter(h => !h.startsWith('#') || !ids.has(h.slice(1))),
  };
})()"""


@pytest.fixture(scope="module")
def checked(tmp_path_factory):
    """A report built from scratch, and one rebuilt from a copy of its saved chunks (its arms are not replayed).

    That the arms' results are the same for any job count is the run loop's tests' (and ``report all``'s from
    scratch in ``test_report_book``); here the rebuild checks the rendering and the chunk store's round trip. The
    rebuild draws its pages on this one process, each sheet's layout checked as it is saved (same bytes as the
    first build's, drawn on two).
    """
    folder = tmp_path_factory.mktemp("report")
    paths = []
    with pytest.MonkeyPatch.context() as mp:
        fewest_expert_games(mp)
        for name, jobs in (("a.pdf", "2"), ("b.pdf", "1")):
            if name == "b.pdf":
                shutil.copytree(folder / "a.chunks", folder / "b.chunks")
            with checked_drawing() as layout:
                result = runner.invoke(
                    app,
                    ["report", "pantolino", "-n", "600", "--jobs", jobs, "--quiet", "--out", str(folder / name)],
                    env={"SOURCE_DATE_EPOCH": "1767225600"},
                )
            assert result.exit_code == 0, result.output
            paths.append(folder / name)
    return paths, result.stdout, layout


@pytest.fixture(scope="module")
def two_builds(checked):
    return checked[:2]


def test_every_page_lays_out_cleanly(checked) -> None:
    layout = checked[2]
    assert layout.sheets == 14 and layout.problems == [], layout  # the rebuild drew every sheet here


def test_report_has_a_front_page_and_one_page_per_question(two_builds) -> None:
    (path, _), stdout = two_builds
    reader = PdfReader(path)
    texts = [page.extract_text() for page in reader.pages]
    assert len(texts) == 14 and texts[-1].startswith("Glossary")
    for word in ("seed", "2026", "policies", "date", "2026-01-01", "boardlab", "What we found", "Contents"):
        assert word in texts[0], word
    assert "is the best policy" in texts[1] and "regret vs turn-optimal" in texts[1]
    assert "Keeping jokers wins" in texts[2] and "joker face" in texts[2]
    assert "Escaping boots" in texts[3] and "comeback" in texts[3]
    assert "Removing a token" in texts[4]
    assert "first player wins" in texts[5]
    head_start = " ".join(texts[6].split())
    assert "head start the second seat is fair, ±" in head_start and "win-optimal (exact)" in head_start
    assert "Skill matters" in texts[7] and "Luck share" in texts[7] and "policies: random" in texts[7]
    assert "The first seat's edge is" in texts[8] and "when everyone plays random" in texts[8]
    assert "the first seat's edge is" in texts[9] and (
        "comes closest to 0" in texts[9] or "detectably closer to 0" in texts[9]
    )
    assert "Which choices matter?" in texts[10] and "never keeps a joker" in texts[10]
    assert "Is there a dominant strategy?" in texts[11] and "simplest" in texts[11]
    assert "Which decisions matter?" in texts[12] and "left in the supply" in texts[12]
    assert all("So what:" in t for t in texts[1:-1])
    assert "report:" in stdout and "html:" in stdout and stdout.count("\n- ") == 11


def test_front_page_states_the_assumptions_with_the_pages_that_measured_them(two_builds) -> None:
    (path, _), _ = two_builds
    front = " ".join(PdfReader(path).pages[0].extract_text().split())
    assert "Assumptions: 3 defaults not from the rulebook" in front
    assert "joker_faces = 1 (published)" in front and "token_values = 2,3,4 (published)" in front
    assert "p. 3: with 0, 1 and 2 joker faces" in front  # the joker page measured it
    assert "p. 6: with tokens of 1, 2, 3 boots seat 0 wins" in front  # the seat page measured it
    assert "p. 7: with a 2-boot head start for the second seat" in front  # the head-start page measured it
    assert "dice 4 rulebook" in front


def _destinations(reader: PdfReader, page) -> set[int]:
    ids = {p.indirect_reference.idnum: i for i, p in enumerate(reader.pages)}
    return {ids[a.get_object()["/Dest"][0].idnum] for a in page.get("/Annots", []) if "/Dest" in a.get_object()}


def test_every_page_has_a_bookmark_and_the_front_page_links_to_each(two_builds) -> None:
    (path, _), _ = two_builds
    reader = PdfReader(path)
    titles = [item.title for item in reader.outline]
    assert len(titles) == len(reader.pages)
    assert titles[:3] == ["Summary, knobs and assumptions", "Which keeping policy wins", "What a joker is worth"]
    assert [reader.get_destination_page_number(item) for item in reader.outline] == list(range(14))
    assert _destinations(reader, reader.pages[0]) == set(range(13))  # findings and contents
    for page in reader.pages[1:-1]:
        assert 0 in _destinations(reader, page) <= {0, 13}  # back to the summary, and to the glossary


def test_a_rebuild_from_the_saved_chunks_with_source_date_epoch_is_byte_identical(two_builds) -> None:
    (a, b), _ = two_builds
    assert a.read_bytes() == b.read_bytes()
    assert a.with_suffix(".html").read_bytes() == b.with_suffix(".html").read_bytes()


def test_html_twin_is_self_contained_with_the_same_pages_and_links(two_builds) -> None:
    (path, _), _ = two_builds
    html = path.with_suffix(".html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', html))
    pages = {i for i in ids if i.startswith("page-")}
    assert pages == {f"page-{n}" for n in range(1, 15)}  # 13 pages, then the glossary
    assert ids - pages and all(i.startswith("term-") for i in ids - pages)  # the glossary's entries
    assert set(re.findall(r'href="#([^"]+)"', html)) <= ids
    assert html.count('<img src="data:image/png;base64,') == FIGURES
    assert not re.search(r'(src|href)="(https?:|//|file:)', html)
    assert "Assumptions: 3 defaults not from the rulebook" in html and "<table>" in html


@pytest.mark.skipif(browser.chromium() is None, reason="no Chromium installed (Debian: apt-get install chromium)")
def test_html_twin_loads_in_a_browser_without_errors(two_builds) -> None:
    (path, _), _ = two_builds
    visit = browser.load(browser.file_url(path.with_suffix(".html")), LINKS_AND_FIGURES)
    assert visit.errors == []
    assert visit.value["images"] == visit.value["loaded"] == FIGURES
    assert visit.value["links"] > 10 and visit.value["broken"] == []
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "pantolino-report-first-screen.png").write_bytes(visit.screenshot)
    assert visit.screenshot.startswith(b"\x89PNG")


def test_study_report_and_unknown_targets(tmp_path) -> None:
    result = runner.invoke(
        app,
        ["report", "pantolino-seat-advantage", "--jobs", "1", "--quiet", "--out", str(tmp_path / "s.pdf")],
    )  # the study's own 40,000 games an arm (a -n here is refused: the file sets the games)
    assert result.exit_code == 0, result.output
    assert len(PdfReader(tmp_path / "s.pdf").pages) == 3  # front page, its one question, the glossary
    assert (tmp_path / "s.html").exists()
    bad = runner.invoke(app, ["report", "pantolino-seat", "--quiet"])
    assert bad.exit_code == 2 and "did you mean 'pantolino-seat-advantage'" in bad.stderr
    assert runner.invoke(app, ["report", "pantolino", "--precision", "0.7"]).exit_code == 2
