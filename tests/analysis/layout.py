"""Layout checks for drawn report sheets: every text on the sheet, none overlapping another, none off the sheet."""

from __future__ import annotations

from typing import Any

from analysis.book import TITLE_LINES

SLACK = 1.0  # pixels two boxes may share (antialiasing of touching boxes)


def drawn_texts(fig: Any) -> list[tuple[Any, Any]]:
    """Every non-empty text drawing ``fig`` actually draws (ticks out of view are not), with its box in pixels."""
    from matplotlib.text import Text

    seen: list[tuple[Any, Any]] = []
    draw = Text.draw

    def recording(self: Any, renderer: Any) -> None:
        draw(self, renderer)
        if self.get_visible() and self.get_text().strip():
            seen.append((self, self.get_window_extent(renderer)))

    Text.draw = recording  # type: ignore[method-assign]
    try:
        fig.canvas.draw()
    finally:
        Text.draw = draw  # type: ignore[method-assign]
    return seen


def problems(fig: Any) -> list[str]:
    """What is wrong with the sheet's layout: texts leaving the sheet, overlapping texts, a title of > 2 lines."""
    sheet = fig.bbox
    boxes = drawn_texts(fig)
    out = []
    for text, box in boxes:
        inside = box.x0 >= sheet.x0 - SLACK and box.y0 >= sheet.y0 - SLACK
        if not inside or box.x1 > sheet.x1 + SLACK or box.y1 > sheet.y1 + SLACK:
            out.append(f"off the sheet: {text.get_text()!r}")
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            width = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            height = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if width > SLACK and height > SLACK:
                out.append(f"overlap: {a.get_text()!r} and {b.get_text()!r}")
    title = fig._suptitle
    if title is not None and len(title.get_text().splitlines()) > TITLE_LINES:
        out.append(f"title of {len(title.get_text().splitlines())} lines: {title.get_text()!r}")
    return out
