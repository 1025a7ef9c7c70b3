"""What to play (:class:`RunSpec`), checked before any game is played, and the identity its chunks carry.

Limits: at most :data:`MAX_GAMES` games and :data:`MAX_CHUNKS` chunks per run, at most :data:`MAX_CHUNK_GAMES`
games per chunk.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from boardlab.engines import core, get_game
from boardlab.engines.expert import Rollout
from boardlab.experiments import validate
from boardlab.experiments.run import fingerprint
from boardlab.experiments.run.chunkfile import CHECKPOINT_FORMAT

MAX_GAMES = 10**12  # games per run
MAX_CHUNKS = 100_000  # chunks per run: their summaries are kept in memory until the run is merged
MAX_CHUNK_GAMES = 1_000_000  # games per chunk: a chunk's per-game arrays live in one worker at once


@dataclass(frozen=True)
class Knobs:
    """The knob values a command plays: a variant (by name, or None) and the knobs set over it (``--set``, as text)."""

    settings: tuple[tuple[str, str], ...] = ()
    variant: str | None = None


@dataclass(frozen=True)
class RunSpec:
    """What to play: a game, its knobs, the seats' policies, how many games, from which seed."""

    game: str
    seats: tuple[str, ...]
    n_games: int
    seed: int = 0
    settings: tuple[tuple[str, str], ...] = ()  # knob overrides as text, applied after the variant's
    variant: str | None = None
    chunk_size: int | None = None  # games per chunk; None: the game's own (``INFO.chunk_games``)
    variant_sets: tuple[tuple[str, str], ...] | None = None  # the variant's knobs; None: looked up by name

    def __post_init__(self) -> None:
        """Check everything that can be checked before any game is played.

        A variant's knobs are looked up here (the game's own, or one from a variants file loaded in this
        process, see :mod:`experiments.variants`) and carried by the spec, so worker processes need no file.
        A field of the wrong type is refused with a ``ValueError`` naming it.
        """
        self._check_types()
        if self.variant is not None and self.variant_sets is None:
            from boardlab.experiments import variants

            found = variants.settings_of(self.game, self.variant)
            if found is None:
                raise ValueError(
                    f"unknown variant '{self.variant}' for {self.game}"
                    f"{core.did_you_mean(self.variant, variants.names(self.game))}"
                )
            object.__setattr__(self, "variant_sets", tuple(found.items()))
        if isinstance(self.n_games, bool) or not isinstance(self.n_games, int) or self.n_games < 1:
            raise ValueError(f"n_games={self.n_games!r} must be a positive whole number")
        if self.n_games > MAX_GAMES:
            raise ValueError(f"n_games={self.n_games} is out of range; allowed 1..{MAX_GAMES:.0e}")
        module = self.module
        if self.chunk_size is None:
            object.__setattr__(self, "chunk_size", core.default_chunk(module.INFO, module.POLICIES, self.seats))
        if isinstance(self.chunk_size, bool) or not isinstance(self.chunk_size, int) or self.chunk_size < 1:
            raise ValueError(f"chunk_size={self.chunk_size!r} must be a positive whole number")
        if self.chunk_size > MAX_CHUNK_GAMES:
            raise ValueError(f"chunk_size={self.chunk_size} is out of range; allowed 1..{MAX_CHUNK_GAMES:,}")
        if (chunks := -(-self.n_games // self.chunk_size)) > MAX_CHUNKS:
            raise ValueError(
                f"n_games={self.n_games:,} in chunks of {self.chunk_size:,} games makes {chunks:,} chunks; "
                f"allowed at most {MAX_CHUNKS:,} (fewer games or larger chunks)"
            )
        core.check_players(module.INFO, len(self.seats))
        policies = core.resolve_policies(module.POLICIES, self.seats)
        params = self.params  # validates variant and knobs
        for policy in dict.fromkeys(policies):  # a policy with tables to build builds them here, once, not per worker
            if hasattr(policy.impl, "prepare"):
                core.instantiate(policy, params).prepare(len(self.seats))

    def _check_types(self) -> None:
        """Refuse fields of the wrong type (lists are taken as tuples), before anything uses them."""
        validate.text(self.game, "game")
        object.__setattr__(self, "seats", validate.names(self.seats, "seats"))
        object.__setattr__(self, "settings", validate.pairs(self.settings, "settings"))
        names = [name.replace("-", "_") for name, _ in self.settings]
        if twice := sorted({name for name in names if names.count(name) > 1}):
            raise ValueError(f"knob {', '.join(twice)} is set twice; give each knob once")
        if self.variant is not None:
            validate.text(self.variant, "variant")
        validate.whole(self.seed, "seed", 0, 2**63 - 1)

    @property
    def module(self) -> Any:
        """The game package."""
        return get_game(self.game).module

    @property
    def params(self) -> core.Params:
        """The game's ``Params`` with the variant's and then the explicit knob settings applied.

        A setting that gives a knob of the variant another value is refused (neither silently wins).
        """
        module = self.module
        chosen = dict(self.variant_sets or ())
        params = module.Params().with_strings(chosen)
        settings = dict(self.settings)
        final = params.with_strings(settings)
        for name, text in settings.items():
            key = name.replace("-", "_")
            if key in chosen and getattr(final, key) != getattr(params, key):
                raise ValueError(
                    f"{key}={text} conflicts with variant '{self.variant}', which sets {key}={chosen[key]}; "
                    "give one or the other"
                )
        return final

    def chunks(self) -> list[tuple[int, int]]:
        """``(index, games)`` of every chunk."""
        full, rest = divmod(self.n_games, self.chunk_size)
        return [(i, self.chunk_size) for i in range(full)] + ([(full, rest)] if rest else [])

    def identity(self) -> dict[str, Any]:
        """Everything that determines a chunk's games (not ``n_games``: a longer run reuses earlier chunks).

        A seat whose policy plays a model (``fingerprint(players)``: a learned player) adds the model's digest,
        so chunks played with another model are never reused. ``code`` holds a digest of each seat policy's code
        (:mod:`experiments.run.fingerprint`), so chunks played before that code changed are never reused either.
        """
        module = self.module
        identity = {
            "format": CHECKPOINT_FORMAT,
            "game": self.game,
            "version": module.INFO.version,
            "params": self.params.as_dict(),
            "seats": list(self.seats),
            "seed": self.seed,
            "chunk_size": self.chunk_size,
        }
        if models := self.models():
            identity["models"] = models
        identity["code"] = self.code()
        return identity

    def code(self) -> dict[str, str]:
        """A digest of the code of each seat's policy, by policy name."""
        module = self.module
        policies = core.resolve_policies(module.POLICIES, self.seats)
        return {p.name: fingerprint.policy_code(p, module.__name__) for p in policies}

    def models(self) -> dict[str, str]:
        """Digest of the model each seat's policy plays, by policy name, for the policies that play one.

        The expert rolling out with a learned player (``expert:N@learned``) plays that player's model too.
        """
        registry, players = self.module.POLICIES, len(self.seats)
        digests = {
            p.name: model_digest(registry, p, self.params, players) for p in core.resolve_policies(registry, self.seats)
        }
        return {name: digest for name, digest in digests.items() if digest is not None}

    def identity_text(self) -> str:
        """The identity as canonical JSON text: what chunk stores key an arm's chunks by."""
        return json.dumps(self.identity(), sort_keys=True)

    def key(self) -> str:
        """A short hash of the identity and ``n_games``, naming the default run folder."""
        text = json.dumps({**self.identity(), "n_games": self.n_games}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:10]


def model_digest(
    registry: Mapping[str, core.Policy], policy: core.Policy, params: core.Params, players: int
) -> str | None:
    """The digest of the model ``policy`` plays (``fingerprint``), or of its rollout policy's; ``None``: no model."""
    impl = core.instantiate(policy, params)
    if hasattr(impl, "fingerprint"):
        return impl.fingerprint(players)
    if isinstance(policy.arg, Rollout):
        return model_digest(registry, registry[policy.arg.rollout], params, players)
    return None


def identity_key(identity: dict[str, Any] | str) -> str:
    """The SHA-256 (hex) of an identity (or of its JSON text): what every chunk file of that identity records."""
    text = identity if isinstance(identity, str) else json.dumps(identity, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()
