"""The chunk file format: the SHA-256 of an npz archive of a chunk's summary and label, then the archive.

Any truncated or altered byte, and any chunk of another run, index or size, is caught before it is used. The
format is the one every earlier run folder was written in (:data:`CHECKPOINT_FORMAT` 3), so they resume.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.analysis.files import atomic_write
from boardlab.analysis.summary import Summary
from boardlab.engines.cachedir import read_bytes

CHECKPOINT_FORMAT = 3  # 2: every chunk file holds its own label (run key, index, games); 3: game-metric sums
DIGEST_BYTES = hashlib.sha256().digest_size  # a checkpoint file starts with the SHA-256 of the rest
LABEL = "chunk_label"  # the archive entry holding a chunk's label (JSON bytes)
MAX_CHUNK_BYTES = 1 << 30  # a chunk file is read only up to this size (ours: a few hundred kilobytes)


def chunk_label(run_key: str, index: int, games: int) -> dict[str, Any]:
    """What a chunk file must say about itself to be used as chunk ``index`` (``games`` games) of run ``run_key``."""
    return {"format": CHECKPOINT_FORMAT, "run": run_key, "index": index, "games": games}


def chunk_name(index: int, games: int) -> str:
    """The file name of chunk ``index`` of ``games`` games."""
    return f"chunk-{index:06d}-{games}.ckpt"


def read_checkpoint(path: Path, expected: dict[str, Any] | None = None) -> tuple[Summary, dict[str, Any]] | None:
    """The summary and label in checkpoint file ``path``, or None unless it is whole and its label right.

    Right: the label has every item of ``expected``, and the summary as many games as the label says.

    Raises:
        ValueError: (one line) for a pipe, device or folder at ``path``, or a file past :data:`MAX_CHUNK_BYTES`.
    """
    raw = read_bytes(path, MAX_CHUNK_BYTES, "chunk file")
    digest, archive = raw[:DIGEST_BYTES], raw[DIGEST_BYTES:]
    if hashlib.sha256(archive).digest() != digest:
        return None
    try:
        with np.load(io.BytesIO(archive), allow_pickle=False) as data:
            label = json.loads(data[LABEL].tobytes())
            if not isinstance(label, dict):
                return None
            summary = Summary.from_arrays({k: data[k] for k in data.files if k != LABEL})
    except Exception:  # an intact file that still cannot be read is recomputed, never used
        return None
    if expected is not None and any(label.get(k) != v for k, v in expected.items()):
        return None
    return (summary, label) if summary.n_games == label.get("games") else None


def write_checkpoint(path: Path, summary: Summary, label: dict[str, Any]) -> None:
    """Write ``summary`` and ``label`` to ``path`` atomically: the SHA-256 of an npz archive, then the archive."""
    archive = io.BytesIO()
    np.savez(archive, **summary.to_arrays(), **{LABEL: np.frombuffer(json.dumps(label).encode(), np.uint8)})
    atomic_write(path, hashlib.sha256(archive.getvalue()).digest() + archive.getvalue())


def file_sha256(path: Path) -> str:
    """The SHA-256 (hex) of a file's bytes."""
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
