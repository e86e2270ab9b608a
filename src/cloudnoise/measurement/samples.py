"""Read what the probes wrote: raw sample records and per-rank info files.

The probes append 48-byte records (six int64: kind, size_bytes, param,
stream, t_ns, value_ns; see ``src/probes/cn_samples.h``) to
``PREFIX.rankN.bin`` and facts to ``PREFIX.rankN.info``. A killed probe can
leave a torn last record, which is dropped here; everything before it counts.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

RECORD = np.dtype(
    [
        ("kind", "<i8"),
        ("size_bytes", "<i8"),
        ("param", "<i8"),
        ("stream", "<i8"),
        ("t_ns", "<i8"),
        ("value_ns", "<i8"),
    ]
)

(KIND_RTT, KIND_SEND_CALL, KIND_RECV_CALL, KIND_TRAIN, KIND_DETOUR, KIND_GOAL_REP, KIND_ISEND_CALL,
 KIND_EXCHANGE, KIND_TRAIN_DELAYED, KIND_RECV_EARLY, KIND_RECV_LATE, KIND_SEND_DONE, KIND_CORE_LATENCY,
 KIND_PINGPONG_REF) = range(14)
KIND_NAMES = {
    KIND_RTT: "rtt",
    KIND_SEND_CALL: "send_call",
    KIND_RECV_CALL: "recv_call",
    KIND_TRAIN: "train",
    KIND_DETOUR: "detour",
    KIND_GOAL_REP: "goal_rep",
    KIND_ISEND_CALL: "isend_call",
    KIND_EXCHANGE: "exchange",
    KIND_TRAIN_DELAYED: "train_delayed",
    KIND_RECV_EARLY: "recv_early",
    KIND_RECV_LATE: "recv_late",
    KIND_SEND_DONE: "send_done",
    KIND_CORE_LATENCY: "core_latency",
    KIND_PINGPONG_REF: "pingpong_ref",
}

_RANK = re.compile(r"\.rank(\d+)\.(bin|info)$")


def read_records(path: Path) -> np.ndarray:
    """All whole records of one sample file (empty when it does not exist)."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return np.empty(0, dtype=RECORD)
    whole = len(data) - len(data) % RECORD.itemsize
    return np.frombuffer(data[:whole], dtype=RECORD)


def count_records(path: Path) -> int:
    """How many whole records a sample file holds, without reading it."""
    try:
        return path.stat().st_size // RECORD.itemsize
    except FileNotFoundError:
        return 0


def read_info(path: Path) -> dict[str, str]:
    """A probe rank's key=value info file as a dict (empty when missing)."""
    info: dict[str, str] = {}
    try:
        text = path.read_text(errors="replace")
    except FileNotFoundError:
        return info
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            info[key.strip()] = value.strip()
    return info


def rank_files(prefix: Path, suffix: str) -> dict[int, Path]:
    """rank -> file for PREFIX.rankN.<suffix>."""
    out: dict[int, Path] = {}
    for path in prefix.parent.glob(prefix.name + ".rank*." + suffix):
        match = _RANK.search(path.name)
        if match:
            out[int(match.group(1))] = path
    return dict(sorted(out.items()))
