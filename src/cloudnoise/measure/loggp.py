"""Estimate LogGP(S) parameters from the ``loggp`` probe's samples.

Method (in the spirit of Netgauge's parametrised round trips, with every
sample kept): for each message size s the probe measures, between two ranks,

* ping-pongs: RTT(s), so the one-way time T(s) = RTT(s)/2;
* trains of n back-to-back ``MPI_Send`` s closed by a 1-byte ack: the time of
  every send call, o_s(s), and the time of the whole train, P_n(s);
* receives of a message that has already arrived (the receiver waits 2 RTT
  before calling ``MPI_Recv``): the time of the call, o_r(s).

Medians are used throughout, so the parameters describe the common case and
the noise stays in the samples. Then, in nanoseconds (and ns per byte):

* ``o_s`` = o_s(1), ``o_r`` = o_r(1), ``o`` = (o_s + o_r) / 2;
* ``L`` = T(1) - o_s - o_r (clipped at 0, with a note, when the overheads of
  a shared-memory transport exceed the one-way time);
* ``g`` = per-message gap of 1-byte trains:
  (P_n(1) - T(1) - T(1)) / (n - 1), the train minus its last message's
  one-way time and the ack's;
* ``S`` (LogGOPS): the largest eager size. A rendezvous ``MPI_Send`` blocks
  until the receiver has the data, so its call lasts most of T(s); S is the
  size below the first s from which o_s(s) >= 0.6 T(s) for all larger sizes
  (0 when every measured size looks eager, i.e. no threshold was seen);
* ``G`` = least-squares slope of T(s) over the sizes above S (the
  bandwidth-bound regime; all sizes >= 1 KiB when fewer than 3 are above S);
  ``G_stream`` the slope of the per-message train gap over the same sizes;
* ``O`` (LogGOPS) = slope of o_s(s) over the eager sizes <= S (the per-byte
  cost of copying a message out);
* ``O_rendezvous`` = slope of the ``MPI_Isend`` call's duration over the sizes
  above S (at least two of them; None otherwise): what posting a rendezvous
  send costs the sender's CPU per byte. It is near 0 where the transport
  moves the data without the sender's copy (shared-memory single copy, RDMA),
  so the simulated sender is not charged a copy that an eager send makes.
  (A blocking rendezvous ``MPI_Send`` lasts the whole transfer and cannot
  tell the two apart.)

Fit quality: R^2 of the straight lines T(s) = a + G s fitted separately in the
eager and rendezvous regimes (what a LogGOPS model assumes), and the relative
residual of every size against its regime's line (``per_size``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cloudnoise.measure.samples import KIND_ISEND_CALL, KIND_RECV_CALL, KIND_RTT, KIND_SEND_CALL, KIND_TRAIN

MEANING = {
    "L": "latency, ns",
    "o": "CPU overhead per message (mean of send and receive), ns",
    "o_s": "send overhead, ns",
    "o_r": "receive overhead, ns",
    "g": "gap between consecutive small messages, ns",
    "G": "gap per byte (1/bandwidth), ns/B",
    "O": "overhead per byte, ns/B",
    "O_rendezvous": "overhead per byte of posting a send above S, ns/B",
    "S": "largest eager message (rendezvous above), B",
    "r2_eager": "R^2 of T(s) = a + G s for s <= S",
    "r2_rendezvous": "R^2 of T(s) = a + G s for s > S",
}


def _median(values: np.ndarray) -> float:
    return float(np.median(values)) if len(values) else float("nan")


def _line(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float, np.ndarray]:
    """Least squares y = a + b x: (a, b, R^2, fitted)."""
    if len(x) < 2:
        return float(y[0]) if len(y) else float("nan"), 0.0, float("nan"), y.astype(float)
    b, a = np.polyfit(x.astype(float), y.astype(float), 1)
    fitted = a + b * x
    ss_res = float(((y - fitted) ** 2).sum())
    ss_tot = float(((y - y.mean()) ** 2).sum())
    r2 = 1.0 - ss_res / ss_tot if ss_tot > 0 else 1.0
    return float(a), float(b), r2, fitted


def fit(data: dict[str, np.ndarray]) -> dict[str, Any]:
    """LogGP(S) parameters, fit quality and per-size medians (see module doc)."""
    kind, size, value, param = data["kind"], data["size_bytes"], data["value_ns"], data["param"]
    sizes = np.unique(size[kind == KIND_RTT])
    if len(sizes) == 0:
        return {"per_size": [], "meaning": MEANING}
    one_way = np.array([_median(value[(kind == KIND_RTT) & (size == s)]) / 2 for s in sizes])
    o_send = np.array([_median(value[(kind == KIND_SEND_CALL) & (size == s)]) for s in sizes])
    o_recv = np.array([_median(value[(kind == KIND_RECV_CALL) & (size == s)]) for s in sizes])
    o_post = np.array([_median(value[(kind == KIND_ISEND_CALL) & (size == s)]) for s in sizes])
    train = np.array([_median(value[(kind == KIND_TRAIN) & (size == s)]) for s in sizes])
    n_train = np.array([_median(param[(kind == KIND_TRAIN) & (size == s)]) for s in sizes])
    gap = (train - one_way - one_way[0]) / np.maximum(n_train - 1, 1)

    notes: list[str] = []
    o_s, o_r = float(o_send[0]), float(o_recv[0])
    latency = float(one_way[0] - o_s - o_r)
    if latency < 0:
        notes.append("send plus receive overhead exceed RTT/2 at 1 byte (typical of shared memory); L clipped to 0")
        latency = 0.0

    blocking = o_send >= 0.6 * one_way
    rendezvous_from = len(sizes)
    for i in range(len(sizes) - 1, -1, -1):
        if not blocking[i]:
            break
        rendezvous_from = i
    if rendezvous_from == 0:
        notes.append("every size's send blocks like a rendezvous; S set to 0")
    eager_limit = int(sizes[rendezvous_from - 1]) if 0 < rendezvous_from < len(sizes) else 0

    eager = np.arange(len(sizes)) < rendezvous_from
    bulk = ~eager
    if bulk.sum() < 3:
        bulk = sizes >= 1024
        if bulk.sum() < 2:
            bulk = np.ones(len(sizes), bool)
    _, big_g, _, _ = _line(sizes[bulk], one_way[bulk])
    _, g_stream, _, _ = _line(sizes[bulk], gap[bulk])
    _, big_o, _, _ = _line(sizes[eager], o_send[eager]) if eager.sum() >= 2 else (0, 0.0, 0, None)
    posted = ~eager & np.isfinite(o_post)
    o_rendezvous = None
    if 0 < rendezvous_from and posted.sum() >= 2:
        o_rendezvous = max(0.0, _line(sizes[posted], o_post[posted])[1])

    fitted = np.empty(len(sizes))
    r2: dict[str, float] = {}
    for name, sel in (("r2_eager", eager), ("r2_rendezvous", ~eager)):
        if sel.sum() >= 2:
            _, _, r2[name], fitted[sel] = _line(sizes[sel], one_way[sel])
        else:
            r2[name] = float("nan")
            fitted[sel] = one_way[sel]
    per_size = [
        {
            "size_bytes": int(s),
            "one_way_ns": float(t),
            "send_overhead_ns": float(a),
            "recv_overhead_ns": float(b),
            "isend_overhead_ns": None if np.isnan(c) else float(c),
            "train_gap_ns": float(gp),
            "fitted_ns": float(f),
            "residual": float((t - f) / t) if t else 0.0,
        }
        for s, t, a, b, c, gp, f in zip(sizes, one_way, o_send, o_recv, o_post, gap, fitted)
    ]
    return {
        "L": latency,
        "o": (o_s + o_r) / 2,
        "o_s": o_s,
        "o_r": o_r,
        "g": max(0.0, float(gap[0])),
        "G": max(0.0, big_g),
        "G_stream": max(0.0, g_stream),
        "O": max(0.0, float(big_o)),
        "O_rendezvous": o_rendezvous,
        "S": eager_limit,
        **r2,
        "max_abs_residual": float(max(abs(p["residual"]) for p in per_size)),
        "train_length": int(n_train[0]) if len(n_train) else 0,
        "notes": notes,
        "meaning": MEANING,
        "per_size": per_size,
    }
