"""Estimate LogGP(S) parameters from the ``cn_loggp`` probe, and check them.

The probe (``src/probes/cn_loggp.c``) measures, between two ranks and for each
message size s, Netgauge's parametrised round trips (Hoefler, Lichei and Rehm,
"LogGP in theory and practice", 2009) the way collectives run: non-blocking
sends and receives completed by polling, receives posted before their message
arrives unless said otherwise. The operations, per size, in ns:

``pingpong``  PRTT(1,0,s), reported as the one-way time T(s) = PRTT(1,0,s) / 2;
``exchange``  both ranks send, then receive (the smallest collective);
``train``     PRTT(n,0,s): n sends back to back and an s-byte reply;
``delayed``   PRTT(n,d,s): the same with d = PRTT(1,0,s) between the sends;
``isend``     the duration of the MPI_Isend call (the sender's CPU per message);
``recv_early`` completing a posted receive whose message has arrived;
``recv_late`` posting and completing a receive whose message has arrived;
``send_done`` MPI_Isend to completion while the receive is not yet posted.

Every duration is taken between two clock reads, so it holds the cost of one
read (50-120 ns on a VM: as much as a small message), which is subtracted.
The whole size sweep is repeated in rounds. Each round's medians are a short
estimate; a round whose times stand well above the others' (another process
had the cores) is set aside, and every parameter is the median of its
per-round estimates, reported with their interquartile range.

The parameters (LogGOPSim's semantics, ns and ns per byte):

* ``S``: the largest size whose send completes before the receive is posted
  (``send_done`` well under the receiver's wait): eager up to S, rendezvous
  above.
* ``o_s`` = isend(1 B), ``o_r`` = recv_early(1 B), ``o`` = (o_s + o_r) / 2
  (each the median over the sizes up to ``SMALL_BYTES``, a few ns apart:
  one spoiled unit does not make a parameter).
  The early receive, not the late one: a collective's receives are mostly
  posted before their messages arrive, and a receive posted late takes the
  library's unexpected-message path (its extra cost is reported, not fitted).
* ``L`` = T(1) - o_s - o_r (the latency of the first size class). When the overheads exceed T(1) (they can on
  shared memory, within the noise) L is 0 and the fit says so.
* ``g`` = the per-message gap of 1-byte trains, (PRTT(n,0,1) - PRTT(1,0,1)) / (n - 1).
* Size classes: T(s) and the exchange are not one straight line over 1 B..16 MiB
  (the eager/rendezvous switch, copies that leave the caches), so the sizes
  are cut into contiguous classes by optimal partitioning (at least 3 sizes
  per class, a cut always at S): the least sum of squared relative misses of
  T and the exchange, each capped (a size another process spoiled does not
  choose the cuts), plus a penalty per class worth three sizes brought from
  ``CLASS_TOLERANCE`` to their line. Class k holds, for messages from ``min_bytes``:
  ``L`` (its latency: the line's intercept above o_s + o_r), ``G`` (its slope:
  the one-way cost per byte) and ``O`` (the part of it that occupies the CPU,
  0 <= O <= G, from what an exchange costs beyond a one-way transfer and from
  the send calls: the engine charges it on the sender, so a rank that sends
  and receives at once pays it twice). The profile's plain L, G, O are those
  of the smallest and of the 1 MiB class; the engine uses the classes.

Every measured operation is then predicted from the parameters with
LogGOPSim's rules (closed forms below, checked against the engine in the
tests) and its residual printed per size; a fit that cannot reproduce an
operation within ``REPRODUCE_TOLERANCE`` says so in one line naming the worst.
Both a model with one o (LogGOPS) and one with separate o_s / o_r (the
engine's extension) are scored this way: the split is chosen only where its
median |residual| over every operation and size is ``SPLIT_BETTER`` times
the one-o model's or less, so the data decides whether a profile needs it.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from cloudnoise.measurement.core_latency import CoreLatency, rounds_in_another_state
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

OPERATIONS = ("pingpong", "exchange", "train", "delayed", "isend", "recv_early", "recv_late")
KINDS = {
    "pingpong": KIND_RTT,
    "exchange": KIND_EXCHANGE,
    "train": KIND_TRAIN,
    "delayed": KIND_TRAIN_DELAYED,
    "isend": KIND_ISEND_CALL,
    "recv_early": KIND_RECV_EARLY,
    "recv_late": KIND_RECV_LATE,
    "send_done": KIND_SEND_DONE,
}
CLASS_TOLERANCE = 0.04  # a size class's line must reproduce T and the exchange this closely
REPRODUCE_TOLERANCE = 0.10  # an operation is reproduced within 10 % ...
REPRODUCE_FLOOR_NS = 50.0  # ... or 50 ns (timer reads alone cost 20-60 ns)
DISTURBED = 1.25  # a round this much slower than the median round is set aside
SPLIT_BETTER = 0.8  # separate o_s / o_r are used where their median |residual| is this much lower
MIN_CLASS_SIZES = 3
MISS_CAP = 0.25  # a class's squared misses count up to this each
CLASS_PENALTY = 3 * CLASS_TOLERANCE**2  # what one more class must save
SMALL_BYTES = 16  # o_s, o_r, L and g from the sizes up to this (medians over them)

MEANING = {
    "L": "latency of the smallest messages, ns",
    "o": "CPU overhead per message (mean of o_s and o_r), ns",
    "o_s": "send overhead (posting a send), ns",
    "o_r": "receive overhead (completing a posted receive), ns",
    "o_r_late": "receive overhead when the receive is posted after its message arrived, ns",
    "g": "gap between consecutive small messages, ns",
    "G": "gap per byte (1/bandwidth) of the 1 MiB class, ns/B",
    "O": "CPU overhead per byte of the 1 MiB class, ns/B",
    "S": "largest eager message (rendezvous above), B",
}


@dataclass
class SizeClass:
    """LogGP parameters for messages of at least ``min_bytes``."""

    min_bytes: int
    L: float  # ns
    G: float  # ns per byte
    O: float  # noqa: E741 - the model's name; ns per byte


@dataclass
class Estimate:
    """One set of parameters (ns, ns/B, B)."""

    o_s: float
    o_r: float
    L: float
    g: float
    S: int
    classes: list[SizeClass] = field(default_factory=list)

    @property
    def o(self) -> float:
        return (self.o_s + self.o_r) / 2

    def size_class(self, size: int) -> SizeClass:
        chosen = self.classes[0]
        for c in self.classes:
            if c.min_bytes <= size:
                chosen = c
        return chosen


# ---------------------------------------------------------------------------
# What LogGOPSim predicts for each measured operation (two ranks)
# ---------------------------------------------------------------------------


def predict(est: Estimate, sizes: np.ndarray, n: int, delay: np.ndarray, split: bool = False) -> dict[str, np.ndarray]:
    """Each operation's time under LogGOPSim's rules, per size (ns).

    ``split``: the send and receive overheads are o_s and o_r (the engine
    extension); otherwise both are o. Per size class: one-way
    T = o_s + L + o_r + (s-1) max(O, G); the sender's CPU per message
    o_s + (s-1) O; the receiver's o_r + (s-1) max(O, G); an exchange
    o_s + max(L, (s-1) O) + o_r + (s-1) max(O, G) (the receive is handled
    once the rank's own send has left its CPU); a train's gap the largest of
    the sender's CPU, the network's g + (s-1) G and the receiver's CPU;
    a late receive costs what an early one does (LogGOPS has no unexpected
    path)."""
    o_s, o_r = (est.o_s, est.o_r) if split else (est.o, est.o)
    out: dict[str, list[float]] = {op: [] for op in OPERATIONS}
    for s, d in zip(sizes, delay):
        c = est.size_class(int(s))
        b = float(s) - 1.0
        wire = b * max(c.O, c.G)
        one_way = o_s + c.L + o_r + wire
        send_cpu = o_s + b * c.O
        recv_cpu = o_r + wire
        nic = est.g + b * c.G
        out["pingpong"].append(one_way)
        out["exchange"].append(o_s + max(c.L, b * c.O) + o_r + wire)
        out["train"].append(2 * one_way + (n - 1) * max(send_cpu, nic, recv_cpu))
        out["delayed"].append(2 * one_way + (n - 1) * max(send_cpu + d, nic, recv_cpu))
        out["isend"].append(send_cpu)
        out["recv_early"].append(recv_cpu)
        out["recv_late"].append(recv_cpu)
    return {k: np.asarray(v) for k, v in out.items()}


# ---------------------------------------------------------------------------
# Medians per round and size
# ---------------------------------------------------------------------------


@dataclass
class Curves:
    """Per-size medians of every operation (ns; T is RTT/2), for some rounds."""

    sizes: np.ndarray
    ops: dict[str, np.ndarray]  # operation -> per size
    delay: np.ndarray  # the d of the delayed trains
    wait: np.ndarray  # the receiver's wait in the early/late receives
    send_done: np.ndarray


def _median_table(kind, size, rnd, value, sizes, rounds, want) -> np.ndarray:
    """[round, size] medians of one kind (NaN where nothing was measured)."""
    out = np.full((len(rounds), len(sizes)), np.nan)
    sel = kind == want
    if not sel.any():
        return out
    s, r, v = size[sel], rnd[sel], value[sel].astype(float)
    si = np.searchsorted(sizes, s)
    ri = np.searchsorted(rounds, r)
    key = ri * len(sizes) + si
    order = np.argsort(key, kind="stable")
    key, v = key[order], v[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    for chunk_k, chunk_v in zip(np.split(key, bounds), np.split(v, bounds)):
        out.flat[chunk_k[0]] = np.median(chunk_v)
    return out


def per_round(data: dict[str, np.ndarray], read_ns: float = 0.0) -> tuple[np.ndarray, np.ndarray, dict[str, np.ndarray]]:
    """(sizes, rounds, {operation: [round, size] medians}) from the samples,
    each less ``read_ns``, the cost of the clock read every duration between
    two reads holds. Adds ``delay``, ``wait`` (parameters) and ``send_done``."""
    kind, size, value = data["kind"], data["size_bytes"], data["value_ns"].astype(float) - read_ns
    param, rnd = data["param"], data["stream"]
    mine = np.isin(kind, list(KINDS.values()))
    kind, size, value, param, rnd = kind[mine], size[mine], value[mine], param[mine], rnd[mine]
    sizes = np.unique(size[kind == KIND_RTT])
    rounds = np.unique(rnd[kind == KIND_RTT])
    keep = np.isin(size, sizes) & np.isin(rnd, rounds)
    kind, size, value, param, rnd = kind[keep], size[keep], value[keep], param[keep], rnd[keep]
    tables = {op: _median_table(kind, size, rnd, value, sizes, rounds, k) for op, k in KINDS.items()}
    tables["pingpong"] = tables["pingpong"] / 2.0
    tables["delay"] = _median_table(kind, size, rnd, param, sizes, rounds, KIND_TRAIN_DELAYED)
    tables["wait"] = _median_table(kind, size, rnd, param, sizes, rounds, KIND_RECV_EARLY)
    return sizes, rounds, tables


def curves(sizes: np.ndarray, tables: dict[str, np.ndarray], rows: np.ndarray) -> Curves:
    """The median over the chosen rounds of each per-round median."""

    def med(t: np.ndarray) -> np.ndarray:
        sub = t[rows]
        with np.errstate(all="ignore"):
            return np.array([np.median(c[np.isfinite(c)]) if np.isfinite(c).any() else np.nan for c in sub.T])

    return Curves(
        sizes=sizes,
        ops={op: med(tables[op]) for op in OPERATIONS},
        delay=med(tables["delay"]),
        wait=med(tables["wait"]),
        send_done=med(tables["send_done"]),
    )


def disturbed_rounds(tables: dict[str, np.ndarray]) -> np.ndarray:
    """Rounds whose ping-pongs and exchanges run DISTURBED times slower than the
    typical round (median ratio over sizes): another process had the cores."""
    both = np.concatenate([tables["pingpong"], tables["exchange"]], axis=1)
    with np.errstate(all="ignore"):
        typical = np.nanmedian(both, axis=0)
        ratio = np.nanmedian(both / typical, axis=1)
    return np.flatnonzero(~(ratio <= DISTURBED))


# ---------------------------------------------------------------------------
# The estimator
# ---------------------------------------------------------------------------


def eager_limit(c: Curves) -> tuple[int, str | None]:
    """S: the largest size up to which every send completed on its own, before
    the receiver (waiting ``wait`` ns) posted its receive."""
    eager = c.send_done < 0.5 * c.wait
    if not np.isfinite(c.send_done).any():
        return 0, "no send_done samples: S unknown, set to 0"
    if eager.all():
        return int(c.sizes[-1]), f"every size up to {int(c.sizes[-1])} B was sent eagerly: no rendezvous seen, S set to the largest"
    first_rdv = int(np.argmin(eager))
    if first_rdv == 0:
        return 0, "every size's send waited for its receive: S set to 0"
    return int(c.sizes[first_rdv - 1]), None


def _fit_O(b: np.ndarray, T_excess: np.ndarray, X: np.ndarray, isend: np.ndarray, o_s: float, o_r: float,
           L: float, C: float) -> float:
    """The CPU share O in [0, C] that best reproduces the exchange and the send
    calls (relative residuals)."""
    from scipy.optimize import minimize_scalar

    def cost(O: float) -> float:
        x = o_s + np.maximum(L, b * O) + o_r + b * C
        e = ((x - X) / X) ** 2
        s = ((o_s + b * O - isend) / np.maximum(isend, 1.0)) ** 2
        return float(np.nansum(e) + np.nansum(s))

    if C <= 0:
        return 0.0
    grid = np.linspace(0.0, C, 41)
    # the whole grid at once (cost(O) for each O, as one array: the size sweep of an
    # imported table has over a hundred sizes, and a class fit is made per size range)
    Og = grid[:, None]
    x = o_s + np.maximum(L, b * Og) + o_r + b * C
    e = ((x - X) / X) ** 2
    s = ((o_s + b * Og - isend) / np.maximum(isend, 1.0)) ** 2
    best = grid[int(np.argmin(np.nansum(e, axis=1) + np.nansum(s, axis=1)))]
    lo, hi = max(0.0, best - C / 40), min(C, best + C / 40)
    res = minimize_scalar(cost, bounds=(lo, hi), method="bounded", options={"xatol": C * 1e-6})
    return float(res.x) if cost(float(res.x)) <= cost(best) else float(best)


def _class_fit(c: Curves, i: int, j: int, o_s: float, o_r: float,
               latency: float | None = None) -> tuple[SizeClass, float, np.ndarray]:
    """Class over sizes[i:j], its worst relative miss of T and the exchange,
    and every miss."""
    b = c.sizes[i:j].astype(float) - 1.0
    T, X = c.ops["pingpong"][i:j], c.ops["exchange"][i:j]
    ok = np.isfinite(T) & (T > 0)
    if not ok.any():  # nothing measured in this range: a flat class, no evidence against it
        return SizeClass(int(c.sizes[i]), 0.0, 0.0, 0.0), 0.0, np.zeros(0)
    L, C = _fit_line(b[ok], T[ok], o_s + o_r, latency)
    O = _fit_O(b, T, X, c.ops["isend"][i:j], o_s, o_r, L, C)
    t_pred = o_s + L + o_r + b * C
    x_pred = o_s + np.maximum(L, b * O) + o_r + b * C
    with np.errstate(all="ignore"):
        miss = np.abs(np.concatenate([(t_pred - T) / T, (x_pred - X) / X]))
    miss = miss[np.isfinite(miss)]
    return SizeClass(int(c.sizes[i]), L, C, O), float(miss.max()) if len(miss) else 0.0, miss


def _fit_line(b: np.ndarray, T: np.ndarray, floor: float, latency: float | None = None) -> tuple[float, float]:
    """Least squares T = floor + L + b C with L, C >= 0, weighted by 1/T
    (relative residuals); with ``latency`` given, L is that and only C is fitted."""
    from scipy.optimize import lsq_linear

    w = 1.0 / np.maximum(T, 1e-9)
    if latency is not None:
        bw = b * w
        denom = float(np.dot(bw, bw))
        C = float(np.dot(bw, (T - floor - latency) * w)) / denom if denom > 0 else 0.0
        return float(latency), max(C, 0.0)
    A = np.column_stack([np.ones_like(b), b]) * w[:, None]
    res = lsq_linear(A, (T - floor) * w, bounds=([0.0, 0.0], [np.inf, np.inf]))
    return float(res.x[0]), float(res.x[1])


def size_classes(c: Curves, S: int, o_s: float, o_r: float,
                 latency: float | None = None) -> tuple[list[tuple[int, int]], float]:
    """Contiguous classes (index ranges) cut at S, each of at least
    MIN_CLASS_SIZES sizes, by optimal partitioning: the least sum over
    classes of their squared relative misses of T and the exchange (each
    capped at MISS_CAP: a size another process spoiled costs the same in any
    class, so it does not choose the cuts) plus CLASS_PENALTY per class (a
    new class must cut that much: a few sizes brought from beyond
    CLASS_TOLERANCE to their line). ``latency``: the first class's L, given
    (`estimate`'s ``anchor``). Returns (ranges, the largest miss)."""
    n = len(c.sizes)
    cut = int(np.searchsorted(c.sizes, S, side="right")) if 0 < S < c.sizes[-1] else None
    if cut is not None and min(cut, n - cut) < MIN_CLASS_SIZES:
        cut = None  # a regime of one or two measured sizes cannot hold a line of its own
    minimum = min(MIN_CLASS_SIZES, n)
    cost: dict[tuple[int, int], float] = {}
    worst: dict[tuple[int, int], float] = {}
    for i in range(n):
        for j in range(i + minimum, n + 1):
            if cut is None or not i < cut < j:
                misses = _class_fit(c, i, j, o_s, o_r, latency if i == 0 else None)[2]
                cost[(i, j)] = float(np.sum(np.minimum(misses, MISS_CAP) ** 2))
                worst[(i, j)] = float(misses.max()) if len(misses) else 0.0
    best: list[tuple[float, list[tuple[int, int]]] | None] = [None] * (n + 1)
    best[0] = (0.0, [])
    for j in range(1, n + 1):
        for i in range(j):
            if best[i] is None or (i, j) not in cost:
                continue
            total = best[i][0] + cost[(i, j)] + CLASS_PENALTY
            if best[j] is None or total < best[j][0]:
                best[j] = (total, best[i][1] + [(i, j)])
    if best[n] is None:  # fewer sizes than a class needs
        return [(0, n)], 0.0
    ranges = best[n][1]
    return ranges, max(worst[r] for r in ranges)


def estimate(c: Curves, n: int, ranges: list[tuple[int, int]] | None = None, S: int | None = None,
             class_sizes: np.ndarray | None = None, anchor: bool = False) -> tuple[Estimate, list[str], float]:
    """Parameters from one set of curves; with ``ranges`` the class cuts are
    given (a round refitted on the pooled cuts). ``S``: the eager limit when the
    caller found it another way (an imported table has no send_done samples);
    ``class_sizes``: the sizes the class cuts are chosen among (all when None;
    the cuts are then fitted on every size). ``anchor``: the first class's line
    goes through the smallest size's time (its L is T(1) - o_s - o_r), for
    sweeps with no sizes between 1 B and the next class's. Returns (estimate,
    notes, class tolerance reached)."""
    notes: list[str] = []
    if S is None:
        S, note = eager_limit(c)
        if note:
            notes.append(note)
    # the smallest sizes together (a few ns apart in theory): one unit that
    # another process spoiled does not make the overheads
    small = np.flatnonzero(c.sizes <= SMALL_BYTES)
    small = small if len(small) else np.array([0])
    with np.errstate(all="ignore"):
        o_s, o_r = float(np.nanmedian(c.ops["isend"][small])), float(np.nanmedian(c.ops["recv_early"][small]))
        t1 = float(np.nanmedian(c.ops["pingpong"][small]))
        train1 = float(np.nanmedian(c.ops["train"][small] - 2 * c.ops["pingpong"][small]))
    L = t1 - o_s - o_r
    if L < 0:
        notes.append(
            f"the overheads o_s + o_r ({o_s + o_r:.0f} ns) exceed the one-way 1 B time ({t1:.0f} ns) by "
            f"{-L:.0f} ns; L = 0 and o_s, o_r scaled by {t1 / (o_s + o_r):.3f} so that T(1) is reproduced")
        scale = t1 / (o_s + o_r)
        o_s, o_r, L = o_s * scale, o_r * scale, 0.0
    g = train1 / (n - 1)
    tol = float("nan")
    first_L = max(L, 0.0) if anchor else None
    if ranges is None and class_sizes is not None:
        keep = np.isin(c.sizes, class_sizes)
        keep[[0, -1]] = True
        at = np.flatnonzero(keep)
        thin, _ = size_classes(_subset(c, keep), S, o_s, o_r, first_L)
        starts = [int(at[i]) for i, _ in thin]
        ranges = list(zip(starts, starts[1:] + [len(c.sizes)]))
        tol = max(_class_fit(c, i, j, o_s, o_r, first_L if i == 0 else None)[1] for i, j in ranges)
    elif ranges is None:
        ranges, tol = size_classes(c, S, o_s, o_r, first_L)
    classes = [_class_fit(c, i, j, o_s, o_r, first_L if k == 0 else None)[0] for k, (i, j) in enumerate(ranges)]
    # a class starts just above the last measured size of the one before
    for k in range(1, len(classes)):
        classes[k].min_bytes = int(c.sizes[ranges[k - 1][1] - 1]) + 1
    classes[0].min_bytes = 0
    # the first class's latency is the one the overheads left (the class line
    # may round it); the smallest messages are what L means
    return Estimate(o_s=o_s, o_r=o_r, L=classes[0].L if ranges else max(L, 0.0), g=max(g, 0.0), S=S,
                    classes=classes), notes, tol


def _subset(c: Curves, keep: np.ndarray) -> Curves:
    """The curves at some of their sizes."""
    return Curves(sizes=c.sizes[keep], ops={op: v[keep] for op, v in c.ops.items()}, delay=c.delay[keep],
                  wait=c.wait[keep], send_done=c.send_done[keep])


def _spread(values: list[float]) -> dict[str, float]:
    v = np.asarray([x for x in values if np.isfinite(x)], dtype=float)
    if not len(v):
        return {"median": float("nan"), "iqr": float("nan"), "rounds": 0}
    q1, q2, q3 = np.percentile(v, [25, 50, 75])
    return {"median": float(q2), "iqr": float(q3 - q1), "rounds": int(len(v))}


def _residuals(c: Curves, pred: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    with np.errstate(all="ignore"):
        return {op: (pred[op] - c.ops[op]) / c.ops[op] for op in OPERATIONS}


def _reproduced(c: Curves, pred: dict[str, np.ndarray], op: str) -> np.ndarray:
    err = pred[op] - c.ops[op]
    with np.errstate(all="ignore"):
        return (np.abs(err) <= REPRODUCE_TOLERANCE * np.abs(c.ops[op])) | (np.abs(err) <= REPRODUCE_FLOOR_NS)


def _worst(c: Curves, pred: dict[str, np.ndarray], ops: tuple[str, ...]) -> tuple[str, int, float] | None:
    """(operation, size, residual) of the largest miss beyond the tolerance."""
    res = _residuals(c, pred)
    best: tuple[str, int, float] | None = None
    for op in ops:
        bad = ~_reproduced(c, pred, op) & np.isfinite(res[op])
        for i in np.flatnonzero(bad):
            if best is None or abs(res[op][i]) > abs(best[2]):
                best = (op, int(c.sizes[i]), float(res[op][i]))
    return best


def _score(c: Curves, pred: dict[str, np.ndarray]) -> float:
    """Median |relative residual| over every operation and size."""
    res = _residuals(c, pred)
    v = np.concatenate([np.abs(r[np.isfinite(r)]) for r in res.values()])
    return float(np.median(v)) if len(v) else float("nan")


def fit(data: dict[str, np.ndarray], train: int | None = None, read_ns: float = 0.0, S: int | None = None,
        class_sizes: np.ndarray | None = None, anchor: bool = False) -> dict[str, Any]:
    """The LogGP(S) fit of a loggp campaign's samples (see the module doc):
    parameters with their spread over rounds, per-size measured and
    predicted times and residuals, and notes. ``read_ns``: the cost of one
    clock read (the probe's info file), taken off every measured duration.
    ``S``, ``class_sizes`` and ``anchor``: see `estimate` (for samples that are not
    the cn_loggp probe's, e.g. an imported Netgauge table)."""
    sizes, rounds, tables = per_round(data, read_ns)
    if len(sizes) == 0:
        return {"per_size": [], "meaning": MEANING, "notes": ["no loggp samples"]}
    first = {op: tables[op][:, 0] for op in ("pingpong", "isend", "recv_early", "train")}
    if not all(np.isfinite(v).any() for v in first.values()):
        missing = ", ".join(op for op, v in first.items() if not np.isfinite(v).any())
        return {"per_size": [], "meaning": MEANING,
                "notes": [f"no {missing} samples at {int(sizes[0])} B yet: the measurement stopped early; "
                          "continue it with --resume"]}
    n = int(train or _train_length(data))
    notes: list[str] = []
    core = core_probes(data)
    moved, typical_core = rounds_in_another_state(rounds, core)
    disturbed = disturbed_rounds(tables) if len(rounds) > 2 else np.array([], int)
    disturbed = np.setdiff1d(disturbed, moved)
    set_aside = np.union1d(disturbed, moved).astype(int)
    kept = np.setdiff1d(np.arange(len(rounds)), set_aside)
    if len(kept) < min(2, len(rounds)):  # nothing (or one of several rounds) left: keep them all, and say so
        kept = np.arange(len(rounds))
        if len(set_aside):
            notes.append("most rounds look disturbed or ran with the cores placed differently; all are used, "
                         "and the fit describes no single machine state")
        set_aside = moved = disturbed = np.array([], int)
    else:
        if len(moved):
            far = [float(np.max(np.abs(np.log(np.asarray(core[int(rounds[r])]) / typical_core)))) for r in moved]
            notes.append(f"rounds {', '.join(str(int(rounds[r])) for r in moved)} set aside: the cores were placed "
                         f"differently (a cache line between them took up to {np.exp(max(far)):.1f}x the typical "
                         f"{typical_core:.0f} ns: the VM's host moved its vCPUs, and every small message with them)")
        if len(disturbed):
            notes.append(f"rounds {', '.join(str(int(rounds[r])) for r in disturbed)} set aside: their ping-pongs "
                         f"and exchanges ran over {DISTURBED - 1:.0%} slower than the typical round "
                         "(another process had the cores)")
    pooled = curves(sizes, tables, kept)
    est, fit_notes, tol = estimate(pooled, n, S=S, class_sizes=class_sizes, anchor=anchor)
    notes += fit_notes
    ranges = _ranges_of(est, sizes)
    # each kept round refitted on the pooled cuts: the spread of the estimates
    per: list[Estimate] = []
    for r in kept:
        one = curves(sizes, tables, np.array([r]))
        if not np.isfinite(one.ops["pingpong"]).all():
            continue
        per.append(estimate(one, n, ranges, S=est.S, anchor=anchor)[0])
    if per:
        final = Estimate(
            o_s=float(np.median([e.o_s for e in per])),
            o_r=float(np.median([e.o_r for e in per])),
            L=float(np.median([e.L for e in per])),
            g=float(np.median([e.g for e in per])),
            S=est.S,
            classes=[SizeClass(k.min_bytes, *(float(np.median([getattr(e.classes[i], a) for e in per]))
                                              for a in ("L", "G", "O")))
                     for i, k in enumerate(est.classes)],
        )
    else:
        final = est
    pred_one = predict(final, sizes, n, pooled.delay)
    pred_split = predict(final, sizes, n, pooled.delay, split=True)
    one_o, two_o = _score(pooled, pred_one), _score(pooled, pred_split)
    # the data decides: separate overheads only where they predict clearly better
    split = bool(two_o < SPLIT_BETTER * one_o)
    pred = pred_split if split else pred_one
    worst = _worst(pooled, pred, OPERATIONS)
    if worst is not None:
        op, s, r = worst
        notes.append(f"the fit cannot reproduce every operation within {REPRODUCE_TOLERANCE:.0%}: "
                     f"worst {op} at {s} B ({r:+.1%})")
    late_extra = pooled.ops["recv_late"] - pooled.ops["recv_early"]
    ref = final.size_class(1 << 20)
    spread = {
        "o_s": _spread([e.o_s for e in per]),
        "o_r": _spread([e.o_r for e in per]),
        "o": _spread([e.o for e in per]),
        "L": _spread([e.L for e in per]),
        "g": _spread([e.g for e in per]),
    }
    for i, k in enumerate(final.classes):
        for a in ("L", "G", "O"):
            spread[f"class{i}.{a}"] = _spread([getattr(e.classes[i], a) for e in per])
    res = _residuals(pooled, pred)
    per_size = []
    for i, s in enumerate(sizes):
        row: dict[str, Any] = {"size_bytes": int(s), "class": _class_index(final, int(s))}
        for op in OPERATIONS:
            row[f"{op}_ns"] = _num(pooled.ops[op][i])
            row[f"{op}_model_ns"] = _num(pred[op][i])
            row[f"{op}_residual"] = _num(res[op][i])
        row["send_done_ns"] = _num(pooled.send_done[i])
        row["eager"] = bool(s <= final.S) if final.S else False
        per_size.append(row)
    return {
        "L": final.L,
        "o": final.o,
        "o_s": final.o_s,
        "o_r": final.o_r,
        "o_r_late": _num(float(pooled.ops["recv_late"][0])),
        "g": final.g,
        "G": ref.G,
        "O": ref.O,
        "S": final.S,
        "size_classes": [asdict(k) for k in final.classes],
        "spread": spread,
        "train_length": n,
        "timer_read_ns": read_ns,
        "rounds": int(len(rounds)),
        "rounds_used": [int(rounds[r]) for r in kept],
        "core_latency_ns": _core_summary(core, rounds, kept, moved),
        "class_max_miss": tol,
        "late_receive_extra_ns": {"median": _num(float(np.nanmedian(late_extra))),
                                  "max": _num(float(np.nanmax(late_extra)))},
        "overhead_model": {
            "one_o_median_abs_residual": one_o,
            "split_o_median_abs_residual": two_o,
            "split_predicts_better": split,
            "chosen": "o_s/o_r" if split else "one o",
        },
        "worst": None if worst is None else {"operation": worst[0], "size_bytes": worst[1], "residual": worst[2]},
        "max_abs_residual": _num(max((abs(r["pingpong_residual"] or 0.0) for r in per_size), default=0.0)),
        "notes": notes,
        "meaning": MEANING,
        "per_size": per_size,
    }


def core_probes(data: dict[str, np.ndarray]) -> dict[int, np.ndarray]:
    """Per round, the core-to-core probes taken before its sizes (ns; core_latency.py)."""
    mine = data["kind"] == KIND_CORE_LATENCY
    rnd, value = data["stream"][mine], data["value_ns"][mine].astype(float)
    return {int(r): value[rnd == r] for r in np.unique(rnd)}


def _core_summary(core: dict[int, np.ndarray], rounds: np.ndarray, kept: np.ndarray,
                  moved: np.ndarray) -> dict[str, Any]:
    """The machine state the fit describes: the kept rounds' probes, and every probe's range."""
    used = [v for r in kept for v in core.get(int(rounds[r]), ())]
    every = CoreLatency(np.asarray([v for vs in core.values() for v in vs], float))
    return {**every.summary(), "used": float(np.median(used)) if used else None,
            "rounds_other_state": [int(rounds[r]) for r in moved]}


def _num(x: float) -> float | None:
    return float(x) if x is not None and np.isfinite(x) else None


def _class_index(est: Estimate, size: int) -> int:
    k = 0
    for i, c in enumerate(est.classes):
        if c.min_bytes <= size:
            k = i
    return k


def _ranges_of(est: Estimate, sizes: np.ndarray) -> list[tuple[int, int]]:
    idx = np.array([_class_index(est, int(s)) for s in sizes])
    return [(int(np.flatnonzero(idx == k)[0]), int(np.flatnonzero(idx == k)[-1]) + 1)
            for k in range(len(est.classes)) if (idx == k).any()]


def _train_length(data: dict[str, np.ndarray]) -> int:
    sel = data["kind"] == KIND_TRAIN
    return int(np.median(data["param"][sel])) if sel.any() else 8
