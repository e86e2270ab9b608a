"""Samples of the cn_loggp probe's operations, generated from known LogGP(S)
parameters: what a transport with exactly those parameters would make the
probe record (see measurement/loggp.py for the operations), with jitter,
outliers and, on request, a disturbed round, late receives that cost
more than early ones, and the core-to-core probe before every unit, with a
round whose cores were placed differently (measurement/core_latency.py)."""

from __future__ import annotations

import numpy as np

from cloudnoise.measurement.loggp import Estimate, SizeClass, predict
from cloudnoise.measurement.samples import (
    KIND_CORE_LATENCY,
    KIND_EXCHANGE,
    KIND_ISEND_CALL,
    KIND_RECV_EARLY,
    KIND_RECV_LATE,
    KIND_RTT,
    KIND_SEND_DONE,
    KIND_TRAIN,
    KIND_TRAIN_DELAYED,
)

SIZES = [1 << k for k in range(25)]

# A shared-memory-like transport: eager copies up to 4 KiB, rendezvous above
# with a handshake (its own latency), and copies that slow down once they
# leave the caches (above 2 MiB). Send and receive overheads differ.
TRUTH = Estimate(
    o_s=180.0,
    o_r=320.0,
    L=40.0,
    g=400.0,
    S=4096,
    classes=[
        SizeClass(0, 40.0, 0.30, 0.15),
        SizeClass(4097, 1500.0, 0.08, 0.01),
        SizeClass(2 * 1024 * 1024 + 1, 30000.0, 0.11, 0.03),
    ],
)


def samples(truth: Estimate = TRUTH, rounds: int = 5, per_unit: int = 41, n: int = 8, jitter: float = 0.02,
            outliers: float = 0.05, late_extra_ns: float = 0.0, disturbed_round: int | None = None,
            seed: int = 1, core_ns: float | None = None, moved_round: int | None = None,
            moved_core: float = 4.0, moved_eager: float = 1.15) -> dict[str, np.ndarray]:
    """The probe's records (kind, size_bytes, param, stream, value_ns) for
    every size, operation and round. With `core_ns`, a core-to-core probe
    (+-3 %) before every unit; in `moved_round` it reads `moved_core` times
    more and every eager operation takes `moved_eager` times longer (too
    little for the disturbed-round test to see)."""
    rng = np.random.default_rng(seed)
    sizes = np.array(SIZES)
    one_way = predict(truth, sizes, n, np.zeros(len(sizes)), split=True)["pingpong"]
    delay = 2 * one_way  # the probe spins PRTT(1,0,s) between delayed sends
    pred = predict(truth, sizes, n, delay, split=True)
    wait = 2 * one_way + 5000.0
    rows: list[tuple[int, int, float, int, float]] = []
    for r in range(rounds):
        slow = 1.5 if r == disturbed_round else 1.0
        for i, s in enumerate(sizes):
            if core_ns is not None:
                moved = moved_core if r == moved_round else 1.0
                rows.append((KIND_CORE_LATENCY, int(s), 0.0, r,
                             core_ns * moved * (1.0 + 0.03 * rng.standard_normal())))
            placed = moved_eager if r == moved_round and s <= truth.S else 1.0
            values = {
                KIND_RTT: 2 * pred["pingpong"][i],
                KIND_ISEND_CALL: pred["isend"][i],
                KIND_EXCHANGE: pred["exchange"][i],
                KIND_TRAIN: pred["train"][i],
                KIND_TRAIN_DELAYED: pred["delayed"][i],
                KIND_RECV_EARLY: pred["recv_early"][i],
                KIND_RECV_LATE: pred["recv_late"][i] + late_extra_ns,
                # an eager send completes on its own; a rendezvous one once the receiver came
                KIND_SEND_DONE: pred["isend"][i] if s <= truth.S else wait[i] + pred["recv_early"][i],
            }
            params = {KIND_TRAIN: n, KIND_TRAIN_DELAYED: delay[i], KIND_RECV_EARLY: wait[i],
                      KIND_RECV_LATE: wait[i], KIND_SEND_DONE: wait[i]}
            for kind, value in values.items():
                v = value * slow * placed * (1.0 + jitter * rng.standard_normal(per_unit))
                hit = rng.random(per_unit) < outliers
                v[hit] *= 3.0  # descheduled now and then
                rows += [(kind, int(s), float(params.get(kind, 0)), r, float(x)) for x in v]
    kind, size, param, stream, value = (np.array(c) for c in zip(*rows))
    return {
        "kind": kind.astype(np.int64),
        "size_bytes": size.astype(np.int64),
        "param": np.round(param).astype(np.int64),
        "stream": stream.astype(np.int64),
        "value_ns": np.round(value).astype(np.int64),
    }
