"""The shell commands a documentation page shows, and running them as the page's reader would.

A page's ``sh`` block is either run or visibly skipped:

- a block whose title starts with :data:`SKIP` (```` ```sh title="not run by the docs test: REASON" ````) is
  skipped, and the reader sees why;
- every other ``sh`` block follows a marker comment ``<!-- test: ... -->``: ``as written``, or option and value
  pairs (``-n 2000 --trials 3``) that replace those options' values in the block's commands, so a page can show
  a million games while the test plays a few thousand.

Each command (a line, or lines joined by a trailing backslash) runs in one folder per page, in page order, with
the installed ``simulate`` first on ``PATH``, and must exit 0.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
SKIP = "not run by the docs test:"
MARKER = re.compile(r"^<!--\s*test:\s*(?P<how>.*?)\s*-->$")
FENCE = re.compile(r"^```(?P<info>.*)$")
TIMEOUT = 300  # seconds for one command: far above what a marked command takes


@dataclass(frozen=True)
class Command:
    """One shell command of a page, as the test runs it."""

    page: str
    line: int  # where the command starts in the page (1-based)
    text: str


@dataclass(frozen=True)
class Page:
    """The commands a page runs, and how many blocks it skips."""

    commands: tuple[Command, ...]
    skipped: int


def pages() -> list[Path]:
    """The pages whose commands are tested: the tutorial and every how-to."""
    return [DOCS / "tutorial.md", *sorted((DOCS / "how-to").glob("*.md"))]


def substitute(command: str, how: str, where: str) -> str:
    """``command`` with each option named in ``how`` given ``how``'s value."""
    if how == "as written":
        return command
    words = shlex.split(how)
    if len(words) % 2 or not all(w.startswith("-") for w in words[::2]):
        raise ValueError(f"{where}: a test marker is 'as written' or option-value pairs, not {how!r}")
    for option, value in zip(words[::2], words[1::2], strict=True):
        command = re.sub(rf"(?<=\s){re.escape(option)}\s+\S+", f"{option} {value}", command)
    return command


def block_commands(lines: list[str], start: int) -> list[tuple[int, str]]:
    """The commands of a block's lines (``start``: the page line of the first), continuation lines joined."""
    commands: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for offset, raw in enumerate(lines):
        line = raw.strip()
        if pending is None:
            if not line or line.startswith("#"):
                continue
            pending = (start + offset, "")
        pending = (pending[0], pending[1] + line.removesuffix("\\").strip() + " ")
        if not line.endswith("\\"):
            commands.append((pending[0], pending[1].strip()))
            pending = None
    if pending is not None:
        commands.append((pending[0], pending[1].strip()))
    return commands


def read(path: Path) -> Page:
    """The commands ``path`` runs, after its markers; an ``sh`` block with neither marker nor skip title fails."""
    text = path.read_text(encoding="utf-8").splitlines()
    name = path.relative_to(DOCS).as_posix() if path.is_relative_to(DOCS) else path.name
    commands: list[Command] = []
    skipped = 0
    i = 0
    while i < len(text):
        fence = FENCE.match(text[i])
        if fence is None:
            i += 1
            continue
        info = fence["info"].strip()
        end = next(j for j in range(i + 1, len(text)) if text[j].startswith("```"))
        if info.split(" ")[0] == "sh":
            if f'title="{SKIP}' in info:
                skipped += 1
            else:
                before = next((text[j].strip() for j in range(i - 1, -1, -1) if text[j].strip()), "")
                marker = MARKER.match(before)
                if marker is None:
                    raise ValueError(
                        f'{name}:{i + 1}: an sh block needs <!-- test: ... --> before it or a title starting "{SKIP}"'
                    )
                for line, command in block_commands(text[i + 1 : end], i + 2):
                    where = f"{name}:{line}"
                    commands.append(Command(name, line, substitute(command, marker["how"], where)))
        i = end + 1
    return Page(tuple(commands), skipped)


def run(page: Page, folder: Path) -> None:
    """Run the page's commands in order in ``folder``; the first that fails raises, naming it and its output."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    env.setdefault("COLUMNS", "120")
    for command in page.commands:
        done = subprocess.run(
            ["bash", "-c", command.text],
            cwd=folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
            check=False,
        )
        if done.returncode != 0:
            tail = (done.stderr or done.stdout).strip().splitlines()[-5:]
            raise AssertionError(
                f"{command.page}:{command.line}: `{command.text}` exited {done.returncode}:\n" + "\n".join(tail)
            )
