"""Games played with stderr going to a file say so: a line when they start, every 30 s, and when they end."""

from __future__ import annotations

import re
import time

from boardlab.engines import steps
from boardlab.experiments.clikit import ProgressBar


def test_games_off_a_terminal_print_start_progress_and_end_lines(capsys, monkeypatch) -> None:
    monkeypatch.setattr(steps, "EVERY", 0.02)
    with ProgressBar(1000, enabled=True) as bar:
        bar.advance(250)
        time.sleep(0.1)
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "playing 1,000 games: started" and lines[-1].startswith("playing 1,000 games: done in ")
    assert any(re.fullmatch(r"playing 1,000 games: 250 of 1,000 games \(25%\), .* so far", line) for line in lines)


def test_quiet_games_print_nothing(capsys) -> None:
    with ProgressBar(1000, enabled=False) as bar:
        bar.advance(1000)
    assert capsys.readouterr().err == ""
