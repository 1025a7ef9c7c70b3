"""Learned models on disk, beside the solver tables: keyed, written atomically, checked before use.

A model file is one JSON header line (the key it was trained for and the SHA-256 of the model bytes) followed by
the model's ``.npz`` bytes (:meth:`engines.learned.model.ValueModel.to_bytes`, or an n-tuple model's
:meth:`engines.learned.ntuple.TupleModel.to_bytes`). Its name carries a digest of the
key, which holds everything that determines the bytes: the game's id and version, every knob, the player count,
the feature and model formats and the training settings. A file is read only if its header's key is the one
asked for and its checksum, shapes and values check out; anything else is reported in one line and rebuilt (or
refused when training is off).
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from boardlab.engines.cachedir import key_digest, read_bytes
from boardlab.engines.learned.model import ValueModel, checksum
from boardlab.engines.learned.ntuple import Spec, TupleModel
from boardlab.engines.learned.training import Model

MAX_MODEL_BYTES = 1 << 28  #: a model file is read only up to this size (ours: the shipped ones are under 100 KB)
MAX_HEADER_BYTES = 1 << 16  #: a model file's header line is at most this long


def file_name(key: Mapping[str, Any]) -> str:
    """``<game>-learned-<players>p-<digest>.model``."""
    return f"{key['game']}-learned-{key['players']}p-{key_digest(key)}.model"


def encode(key: Mapping[str, Any], model: Model) -> bytes:
    """A model file's bytes: the header line, then the model."""
    data = model.to_bytes()
    header = json.dumps({"key": key, "sha256": checksum(data)}, sort_keys=True).encode()
    return header + b"\n" + data


def decode(
    blob: bytes, key: Mapping[str, Any], n_features: int, n_outputs: int = 1, tuples: Spec | None = None
) -> Model:
    """The model in a file's bytes, if it was trained for ``key`` and is intact (an n-tuple model for ``tuples``).

    Raises:
        ValueError: naming what is wrong (not a model file, another key, a bad checksum, bad shapes or values).
    """
    header, newline, _ = blob[: MAX_HEADER_BYTES + 1].partition(b"\n")
    try:
        meta = json.loads(header) if newline else None
    except (ValueError, RecursionError):
        meta = None
    if not isinstance(meta, dict) or not isinstance(meta.get("key"), dict) or not isinstance(meta.get("sha256"), str):
        raise ValueError("not a learned-model file")
    data = blob[len(header) + 1 :]
    if meta["key"] != json.loads(json.dumps(key)):
        raise ValueError("trained for another setting (its key differs)")
    if meta["sha256"] != checksum(data):
        raise ValueError("checksum mismatch (the file is corrupt)")
    if tuples is not None:
        return TupleModel.from_bytes(data, tuples, n_outputs)
    return ValueModel.from_bytes(data, n_features, n_outputs)


def load(path: Path, key: Mapping[str, Any], n_features: int, n_outputs: int = 1, tuples: Spec | None = None) -> Model:
    """Read and check the model at ``path`` (see :func:`decode`); a pipe, device or oversized file is a ValueError.

    ``FileNotFoundError`` if there is none.
    """
    return decode(read_bytes(path, MAX_MODEL_BYTES, "learned model"), key, n_features, n_outputs, tuples)


def save(path: Path, key: Mapping[str, Any], model: Model) -> None:
    """Write the model whole (a temporary name in the same folder, then a rename) or not at all."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=path.name, suffix=".tmp", delete=False) as handle:
        handle.write(encode(key, model))
    os.chmod(handle.name, 0o644)
    os.replace(handle.name, path)
