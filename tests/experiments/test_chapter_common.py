"""What report chapters share (experiments/chapters/common.py): the front page's lines in one order."""

from __future__ import annotations

from experiments.chapters.common import front_page


def test_the_front_page_keeps_the_books_order_and_leaves_out_what_a_chapter_does_not_give() -> None:
    lines = front_page(7, reading="r", games="g", policies="p", knobs="k", game="x", closing=("headlines", "h"))
    assert [label for label, _ in lines] == ["game", "knobs", "policies", "games", "seed", "version", "date",
                                             "reading", "headlines"]  # fmt: skip
    assert dict(lines)["seed"] == "7" and dict(lines)["games"] == "g"
    full = front_page(1, game="x", sources="s", knobs="k", policies="p", arms="a", games="g")
    assert [label for label, _ in full][:6] == ["game", "sources", "knobs", "policies", "arms", "games"]
