"""Study files: a designer's question as TOML, turned into arms (run specs) to play side by side.

```toml
[study]
name = "pantolino-joker-value"          # defaults to the file name
title = "What is a joker face worth?"
game = "pantolino"
seed = 2026                             # every arm uses the same chunk seeds (common random numbers)
n = 100000                              # games per arm; or precision = 0.005 (95% half-width of win rates)
chunk_size = 20000                      # optional; default: the game's (`simulate list GAME`), ≤ 10000
set = { rolls = 3 }                     # optional knobs for every arm

[[arm]]
label = "1 joker face, keep vs reroll"  # optional (default: the seats, variant and knobs); one per arm
seats = ["keep-jokers", "reroll-jokers"] # or: policy = "greedy", players = 3
set = { joker_faces = 1 }               # optional, on top of the study's
variant = "escaping-boots"              # optional
```
A malformed file is refused with one line naming the file, the key and what was expected; so is a file that is
not a regular UTF-8 file of at most 1 MiB, nested too deeply, a study of more than 10,000 arms or more games or
chunks in all than a command may play (:mod:`experiments.validate`), and a name that is not a plain name.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.engines import core, get_game
from boardlab.engines.record import default_policy
from boardlab.experiments import validate, variants
from boardlab.experiments.run import RunSpec

STUDY_KEYS = {"name", "title", "question", "game", "seed", "n", "precision", "chunk_size", "set", "metrics"}
ARM_KEYS = {"label", "seats", "policy", "players", "set", "variant"}


class StudyError(ValueError):
    """A study file that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Arm:
    """One configuration of a study: a label and what to play."""

    label: str
    spec: RunSpec


def arm_chunk(info: core.GameInfo, n_games: int) -> int:
    """Games per chunk for arms played side by side: the game's own size, at most 10,000 and at most ``n_games``.

    So even 20,000 games per arm make several chunks, to pair and to share between cores.
    """
    return min(info.chunk_games, 10_000, n_games)


@dataclass(frozen=True)
class Study:
    """A declarative study: a question, a game, and the arms that answer it."""

    name: str
    title: str
    game: str
    seed: int
    n_games: int
    precision: float | None
    arms: tuple[Arm, ...]
    metrics: tuple[str, ...]
    source: Path | None = None


def _expect(condition: bool, where: str, key: str, expected: str) -> None:
    if not condition:
        raise StudyError(f"{where}: key '{key}' {expected}")


def _expect_text(table: dict[str, Any], field: str, where: str, key: str) -> None:
    """Refuse ``table[field]`` unless it is absent or text that is not blank (a blank one would hide the default)."""
    value = table.get(field, "-")
    _expect(isinstance(value, str), where, key, "must be text")
    _expect(bool(value.strip()), where, key, "must not be blank (leave it out for the default)")


def _settings(where: str, key: str, table: Any) -> tuple[tuple[str, str], ...]:
    _expect(isinstance(table, dict), where, key, "must be a table of knob = value")
    out = []
    for name, value in table.items():
        if isinstance(value, list):
            text = ",".join(str(v) for v in value)
        elif isinstance(value, bool):
            text = "true" if value else "false"
        else:
            text = str(value)
        out.append((str(name), text))
    return tuple(out)


def load_study(path: Path | str) -> Study:
    """Read and validate a study file."""
    path = Path(path)
    where = str(path)
    try:
        data = validate.load_toml(path, "study file")
    except ValueError as err:
        raise StudyError(str(err)) from None
    if (beside := path.with_name(variants.FILE_NAME)).is_file():  # designers' variants beside the study
        variants.load(beside)
    return study_from_dict(data, where, path)


def study_from_dict(data: dict[str, Any], where: str = "<study>", path: Path | None = None) -> Study:
    """Validate a parsed study (see the module docstring for the format)."""
    head = data.get("study")
    _expect(isinstance(head, dict), where, "study", "must be a [study] table")
    unknown = set(head) - STUDY_KEYS
    _expect(
        not unknown, where, f"study.{next(iter(unknown), '')}", f"is not known; use {', '.join(sorted(STUDY_KEYS))}"
    )
    game = head.get("game")
    _expect(isinstance(game, str), where, "study.game", "must name a game")
    try:
        module = get_game(game).module
    except ValueError as err:
        raise StudyError(f"{where}: key 'study.game' {err}") from None
    seed = head.get("seed", 0)
    _expect(
        isinstance(seed, int) and not isinstance(seed, bool) and seed >= 0,
        where,
        "study.seed",
        "must be a whole number ≥ 0",
    )
    n = head.get("n", 100_000)
    _expect(
        isinstance(n, int) and not isinstance(n, bool) and n > 0, where, "study.n", "must be a positive whole number"
    )
    precision = head.get("precision")
    _expect(
        precision is None or (isinstance(precision, int | float) and 0 < precision < 0.5),
        where,
        "study.precision",
        "must be a number between 0 and 0.5",
    )
    chunk = head.get("chunk_size", arm_chunk(module.INFO, n))
    whole_chunk = isinstance(chunk, int) and not isinstance(chunk, bool) and chunk > 0
    _expect(whole_chunk, where, "study.chunk_size", "must be a positive whole number")
    shared = _settings(where, "study.set", head.get("set", {}))
    metrics = head.get("metrics", [])
    _expect(
        isinstance(metrics, list) and all(m in module.METRICS for m in metrics),
        where,
        "study.metrics",
        f"must list metrics of {game}: {', '.join(module.METRICS)}",
    )

    arms_data = data.get("arm")
    _expect(
        isinstance(arms_data, list) and arms_data and all(isinstance(a, dict) for a in arms_data),
        where,
        "arm",
        "must be one or more [[arm]] tables",
    )
    try:
        validate.check_arms(len(arms_data), f"{where}:")
        validate.check_sizes(((n, -(-n // chunk)),) * len(arms_data), f"{where}:")
    except ValueError as err:
        raise StudyError(str(err)) from None
    for key in ("name", "title", "question"):
        _expect_text(head, key, where, f"study.{key}")
    arms: list[Arm] = []
    labelled: dict[str, int] = {}  # label -> the arm that has it
    for i, arm in enumerate(arms_data):
        key = f"arm[{i}]"
        _expect_text(arm, "label", where, f"{key}.label")
        unknown = set(arm) - ARM_KEYS
        _expect(
            not unknown, where, f"{key}.{next(iter(unknown), '')}", f"is not known; use {', '.join(sorted(ARM_KEYS))}"
        )
        if "seats" in arm:
            seats = arm["seats"]
            _expect(
                isinstance(seats, list) and all(isinstance(s, str) for s in seats),
                where,
                f"{key}.seats",
                "must be a list of policy names",
            )
        else:
            policy = arm.get("policy", default_policy(module)[0])
            players = arm.get("players", max(module.INFO.min_players, 2))
            _expect(isinstance(policy, str), where, f"{key}.policy", "must be a policy name")
            _expect(
                isinstance(players, int) and not isinstance(players, bool),
                where,
                f"{key}.players",
                "must be a whole number",
            )
            try:
                core.check_players(module.INFO, players)
            except ValueError as err:
                raise StudyError(f"{where}: key '{key}.players' {err}") from None
            seats = [policy] * players
        settings = shared + _settings(where, f"{key}.set", arm.get("set", {}))
        variant = arm.get("variant")
        _expect(variant is None or isinstance(variant, str), where, f"{key}.variant", "must be a variant name")
        try:
            spec = RunSpec(game, tuple(seats), n, seed, settings, variant, chunk)
        except ValueError as err:
            raise StudyError(f"{where}: key '{key}' {err}") from None
        label = arm.get("label") or _default_label(seats, arm)
        _expect(
            label not in labelled,
            where,
            f"{key}.label",
            f"{label!r} is also arm[{labelled.get(label)}]'s: the tables and the report name arms by label; "
            "give each its own",
        )
        labelled[label] = i
        arms.append(Arm(label, spec))
    name = head.get("name", path.stem if path else "study")
    try:
        validate.check_name(name, "study name")  # it names the study's folders
    except ValueError as err:
        raise StudyError(f"{where}: key 'study.name': {err}") from None
    return Study(name, head.get("title", name), game, seed, n, precision, tuple(arms), tuple(metrics), path)


def _default_label(seats: list[str], arm: dict[str, Any]) -> str:
    parts = [" vs ".join(seats) if len(set(seats)) > 1 else f"{len(seats)} × {seats[0]}"]
    if arm.get("variant"):
        parts.append(arm["variant"])
    parts += [f"{k}={v}" for k, v in arm.get("set", {}).items()]
    return ", ".join(parts)


def shipped_studies(game: str | None = None) -> list[Path]:
    """The study files that ship with boardlab (optionally only one game's)."""
    folder = Path(__file__).parent / "studies"
    return sorted(p for p in folder.glob("*.toml") if game is None or p.stem.startswith(f"{game}-"))


def resolve_study(name_or_path: str) -> Path:
    """A study file by path, or by the name of a shipped study."""
    path = Path(name_or_path)
    if path.exists():
        return path
    names = {p.stem: p for p in shipped_studies()}
    if name_or_path in names:
        return names[name_or_path]
    raise StudyError(f"{name_or_path}: no such file or shipped study{core.did_you_mean(name_or_path, list(names))}")
