"""Pages written at build time (mkdocs-gen-files), so they cannot drift from the code.

- ``reference/cli.md``: every ``simulate`` command and option, walked from the Typer app;
- ``reference/games/GAME.md``: each game's rules summary (its README's first section, in our words), policies,
  knobs (default, allowed values, source), variants, restrictions and metrics, from the game's own records;
- ``reference/metrics.md``: the game metrics with their definitions and the words the reports use;
- ``developer/games/GAME.md``: each game's README (its engineering notes), read from the game's folder;
- ``gallery/GAME.md``: the figures of a small seeded run and tournament of each built-in game (see :func:`gallery`).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import mkdocs_gen_files
import typer

from boardlab.analysis import game_metrics, glossary, names
from boardlab.engines import BUILT_IN, get_game
from boardlab.experiments.cli import app
from boardlab.experiments.commands import listing

ROOT = Path(__file__).resolve().parent.parent


def cell(text: Any) -> str:
    """Text fit for one cell of a Markdown table."""
    return str(text).replace("|", "\\|").replace("\n", " ").strip() or "—"


def option_row(param: Any, ctx: Any) -> str:
    """One table row: the option's spellings with what it takes, then its help with its default, as ``--help``."""
    record = param.get_help_record(ctx)
    if record is None:  # an argument that shows no help record: its name and its own help
        record = (param.human_readable_name, getattr(param, "help", "") or "")
    spelled, words = record
    return f"| `{spelled}` | {cell(words)} |"


def command_section(name: str, command: Any) -> list[str]:
    """A command's section: what it does, its usage line and a table of its arguments and options."""
    ctx = command.context_class(command, info_name=f"simulate {name}")
    lines = [f"## simulate {name}", "", (command.help or "").strip(), "", "```text", command.get_usage(ctx), "```", ""]
    params = [p for p in command.params if not getattr(p, "hidden", False)]
    if params:
        lines += ["| argument or option | what it does |", "|---|---|"]
        lines += [option_row(p, ctx) for p in params]
        lines.append("")
    return lines


def cli_page() -> str:
    """``reference/cli.md``: the top-level options, then every command in the order ``simulate --help`` lists."""
    root = typer.main.get_command(app)  # typer keeps its own copy of click: its objects are used as they come
    ctx = root.context_class(root, info_name="simulate")
    lines = [
        "# Commands",
        "",
        "Every `simulate` command with its arguments and options, generated from the command line itself when the",
        "site is built. `simulate COMMAND --help` prints the same in the terminal.",
        "",
        "```text",
        root.get_usage(ctx),
        "```",
        "",
        (root.help or "").strip(),
        "",
    ]
    for name in root.list_commands(ctx):
        command = root.get_command(ctx, name)
        if command is not None and not command.hidden:
            lines += command_section(name, command)
    return "\n".join(lines) + "\n"


def rules_summary(module: Any) -> str:
    """The first section of the game's README (its rules in our own words), headings shifted one level down."""
    readme = Path(module.__file__).parent / "README.md"
    if not readme.exists():
        return "This game ships no rules summary."
    sections = re.split(r"^## ", readme.read_text(encoding="utf-8"), flags=re.MULTILINE)
    if len(sections) < 2:  # a README of one section: the rules are its text under the title
        return sections[0].partition("\n")[2].strip() or "This game ships no rules summary."
    heading, _, body = sections[1].partition("\n")
    return f"### {heading.strip()}\n\n" + re.sub(r"^### ", "#### ", body.strip(), flags=re.MULTILINE)


def game_page(game: str) -> str:
    """``reference/games/GAME.md`` from ``simulate list GAME --json`` and the game's README."""
    facts = listing.describe(game)
    module = get_game(game).module
    lo, hi = facts["players"]
    lines = [
        f"# {facts['name']}",
        "",
        f"`simulate {game}`: {lo}–{hi} players; a game is stopped after {facts['turn_cap']:,} turns; "
        f"runs are played in chunks of {facts['chunk_games']:,} games. Generated from the game's own records "
        f"(`simulate list {game}` prints the same).",
        "",
        "## Rules summary",
        "",
        rules_summary(module),
        "",
        "## Policies (`--policy`, `--seats`)",
        "",
        "| policy | what it does | argument (`policy:ARG`) |",
        "|---|---|---|",
    ]
    for p in facts["policies"]:
        lines.append(f"| `{p['policy']}` | {cell(p['description'])} | {cell(p['argument'] or 'none')} |")
    lines += [
        "",
        "## Knobs (`--set knob=value`)",
        "",
        "The source says where a default comes from: the rulebook, a published source, or ours.",
        "",
        "| knob | default | allowed | meaning | source of the default |",
        "|---|---|---|---|---|",
    ]
    for k in facts["knobs"]:
        source = cell(k["source"] or "not declared")
        lines.append(f"| `{k['knob']}` | `{k['default']}` | {cell(k['allowed'])} | {cell(k['meaning'])} | {source} |")
    lines += ["", "## Variants (`--variant NAME`)", ""]
    if facts["variants"]:
        lines += ["| variant | sets |", "|---|---|"]
        lines += [
            f"| `{name}` | {cell(', '.join(f'{k}={v}' for k, v in sets.items()))} |"
            for name, sets in facts["variants"].items()
        ]
    else:
        lines.append("This game declares no variants.")
    if facts["restrictions"] and facts["restrictable"]:
        lines += [
            "",
            "## Restrictions (`POLICY!NAME`)",
            "",
            f"Taken by: {', '.join(f'`{p}`' for p in facts['restrictable'])}. "
            f"`simulate restrict {game}` measures each.",
            "",
            "| restriction | a player who … | exists when |",
            "|---|---|---|",
        ]
        for r in facts["restrictions"]:
            lines.append(f"| `{r['restriction']}` | {cell(r['does'])} | {cell(r['needs'] or 'always')} |")
    lines += [
        "",
        "## Metrics",
        "",
        "A tuning target can name: "
        + ", ".join(f"`{t}`" for t in facts["targets"])
        + " (see [Metrics](../metrics.md)).",
        "",
    ]
    own = module.METRICS
    if own:
        lines += ["This game's own measures:", "", "| measure | kind | what it counts |", "|---|---|---|"]
        lines += [f"| `{name}` | {m.kind} | {cell(m.label)} |" for name, m in own.items()]
    return "\n".join(lines) + "\n"


def metrics_page() -> str:
    """``reference/metrics.md``: every game metric, its definition and the words the reports use."""
    needs = {
        "any": "every game",
        "competitive": "games with a winner (not cooperative)",
        "cooperative": "cooperative games",
        "rounds": "games whose engine records the mid-game standings",
        "ladder": "a skill ladder (`simulate ladder`)",
        "turns": "games where each player's turn is counted apart (every built-in game but Panots)",
    }
    lines = [
        "# Metrics",
        "",
        "The measures every run reports, generated from the code's own table of definitions. A share is compared",
        "in percentage points, a count relatively. `simulate tune --target NAME=VALUE` names them; each game's",
        "page lists its own measures too.",
        "",
        "| metric | in a report | definition | measured for | kind |",
        "|---|---|---|---|---|",
    ]
    for name, d in game_metrics.DEFINITIONS.items():
        kind = "share of games" if d.share else "mean per game"
        words = cell(names.NAMES.get(name, d.words))
        lines.append(f"| `{name}` | {words} | {cell(d.label)} | {needs[d.needs]} | {kind} |")
    lines += ["", "## Terms the reports use", "", "The glossary printed at the end of every report.", ""]
    for term in glossary.TERMS:
        lines += [f"**{term.name}**", f": {term.meaning}", ""]
    return "\n".join(lines) + "\n"


def games_index(games: list[str]) -> str:
    """``reference/games/index.md``: a line per game."""
    lines = ["# Games", "", "One page per installed game, generated from its records.", ""]
    for game in games:
        lines.append(f"- [{get_game(game).module.INFO.name}]({game}.md) (`{game}`)")
    return "\n".join(lines) + "\n"


STRONG = ("expert", "learned", "win-optimal", "oracle", "exploit")
"""Policies the gallery's tournaments leave out: search, trained or exact players, slow or trained on first use."""
GALLERY = ROOT / "build" / "docs-gallery"
"""The gallery's run folders: kept between builds, so a second build resumes them in seconds."""


def simulate(*args: str) -> None:
    """Run ``simulate ARGS`` in this interpreter's environment; a failure fails the build."""
    cli = "from boardlab.experiments.cli import main; main()"
    subprocess.run([sys.executable, "-c", cli, *args], check=True, capture_output=True, cwd=ROOT)


def gallery(game: str) -> str:
    """``gallery/GAME.md``: the figures of a small seeded run and a tournament of the game's simple policies."""
    module = get_game(game).module
    folder = GALLERY / game
    simulate(game, "-n", "2000", "--seed", "2026", "--out", str(folder / "run"), "--quiet")
    simple = [p for p in module.POLICIES if not any(p.startswith(s) for s in STRONG)][:4]
    simulate("tournament", game, "--policies", ",".join(simple), "-n", "500", "--out", str(folder / "tournament"))
    lines = [
        f"# {module.INFO.name}",
        "",
        f"Figures of a small run, made when this site was built: `simulate {game} -n 2000 --seed 2026` (the "
        f"game's default player in every seat) and `simulate tournament {game} --policies {','.join(simple)} "
        "-n 500`. With so few games the intervals are wide; the report (`simulate report "
        f"{game}`) plays 20,000 games per comparison and adds the pages with strong players.",
        "",
    ]
    figures = sorted((folder / "run").glob("*.png")) + sorted((folder / "tournament").glob("*.png"))
    for png in figures:
        target = f"gallery/{game}/{png.parent.name}-{png.name}"
        with mkdocs_gen_files.open(target, "wb") as handle:
            handle.write(png.read_bytes())
        title = png.stem.replace("_", " ")
        lines += [f"## {png.parent.name}: {title}", "", f"![{title}]({game}/{png.parent.name}-{png.name})", ""]
    return "\n".join(lines) + "\n"


def write(path: str, text: str) -> None:
    """Write one generated page."""
    with mkdocs_gen_files.open(path, "w") as handle:
        handle.write(text)


def main() -> None:
    """Write every generated page."""
    write("reference/cli.md", cli_page())
    games = listing.listable()
    for game in games:
        write(f"reference/games/{game}.md", game_page(game))
    write("reference/games/index.md", games_index(games))
    write("reference/metrics.md", metrics_page())
    for game in BUILT_IN:
        write(f"gallery/{game}.md", gallery(game))
    for game in games:
        readme = Path(get_game(game).module.__file__).parent / "README.md"
        if readme.exists():  # a game's engineering notes, read from its folder (not copied)
            write(f"developer/games/{game}.md", readme.read_text(encoding="utf-8"))


main()
