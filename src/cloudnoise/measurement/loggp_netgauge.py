"""LogGP(S) from Netgauge's LogGP table (an imported ``ng_loggp.out``), with the
measure stage's own estimator.

An imported table (``measurement.imports.netgauge_loggp_table``) is handed to
``measurement.loggp.fit`` as one round of the loggp probe's records: per size
the ping-pong PRTT(1,0,s), the train PRTT(n,0,s), the delayed train
PRTT(n,d,s), Netgauge's o_s(s) as the send call and its o_r(s) as the
receive. The parameters then come exactly as for a campaign measured by
cloudnoise (docs/explanation/measurement.md): o_s, o_r of the smallest size, L = T(1) - o_s
- o_r (0, with the overheads scaled to T(1), where they exceed it), g from
the 1-byte train, and size classes (L, G, O per class) fitted to T(s). What
the table lacks is supplied here:

* **S.** Netgauge times no send against an unposted receive, so the eager
  limit is read from T(s) itself (`rendezvous_limit`): the first size where
  the one-way time steps up (by at least half of T(1), and at least
  ``STEP_FACTOR`` times the typical change between neighbouring sizes) and
  stays up, with at least ``MIN_SIDE`` sizes on either side. S is the size
  just below that step's first size: the table's 1 KiB grid says only that S
  lies between the last size before the step and the first after it, and
  the rendezvous switches of MPI libraries sit at such a round size (Cray
  MPICH's 8 KiB is then exact). No step seen: S is the largest size measured,
  and a note says so.
* **Class cuts.** The table has about 128 sizes, 1 KiB apart; the class
  partition (quadratic in the sizes) chooses its cuts among every size up
  to 8 KiB and every eighth above, always including three sizes either side of S, and each class is then fitted
  on every size it holds. The class above S starts at S + 1.
* **Large messages.** The table stops at 127 KiB. The importer adds, as
  ping-pongs only, the median round trips of the same run's ping-pong sweep
  (``ng_one_one_mpi_stripe1.out``, up to 16 MiB) above that, so the class
  that 1 MiB to 16 MiB messages fall in is fitted on them, not extrapolated.
* **The first class goes through T(1).** The table jumps from 1 B to 1025 B;
  a free line through the first class's sizes would move the time of every
  small message by whatever that jump holds (on Azure HPC it put 1 B at
  +37 %). The first class's L is therefore T(1) - o_s - o_r, as LogGP
  defines it, and only its G (and O) are fitted.
* **No exchange.** Netgauge measures no simultaneous send and receive, so
  each class's CPU share O rests on the send calls (o_s(s)) alone.

Netgauge's own L, o_s, o_r, g, G (``netgauge_loggp_table.LogGPTable.netgauge_parameters``)
are kept beside the estimate (``netgauge`` in the fit); docs/explanation/measurement.md
says where and why the two differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cloudnoise.measurement import loggp

STEP_FACTOR = 5.0  # a rendezvous step is this many times the typical change between neighbouring sizes
MIN_SIDE = 3  # sizes needed on either side of a step (a line each)
CUT_EVERY = 8  # class cuts are considered at every eighth size of the table ...
DENSE_BYTES = 8 * 1024 + 1  # ... and at every size up to here (the small messages' classes)


def rendezvous_limit(sizes: np.ndarray, one_way_ns: np.ndarray) -> tuple[int, str]:
    """S from the one-way times T(s) of a dense size sweep (module doc), and a note saying how."""
    T = np.asarray(one_way_ns, float)
    n = len(T)
    d = np.diff(T)
    floor = 0.5 * T[0]
    for k in range(MIN_SIDE, n - MIN_SIDE + 1):
        around = np.concatenate([d[max(0, k - 6):k - 1], d[k:k + 5]])
        local = float(np.median(np.abs(around))) if len(around) else 0.0
        step = float(np.median(T[k:k + MIN_SIDE]) - np.median(T[k - MIN_SIDE:k]))
        if d[k - 1] >= floor and step >= floor and d[k - 1] > STEP_FACTOR * local:
            s = int(sizes[k]) - 1
            return s, (f"S = {s} B: the one-way time steps up by {d[k - 1]:.0f} ns from {int(sizes[k - 1])} B to "
                       f"{int(sizes[k])} B ({d[k - 1] / max(local, 1e-9):.0f} times the typical change between "
                       f"neighbouring sizes) and stays up: the rendezvous switch lies between them")
    return int(sizes[-1]), (f"no rendezvous step in the one-way times from {int(sizes[0])} B to {int(sizes[-1])} B: "
                            "S set to the largest size measured (the switch lies above it, or costs less than the noise)")


def class_sizes(sizes: np.ndarray, S: int, table_max: int) -> np.ndarray:
    """The sizes the class cuts are chosen among (module doc)."""
    idx = np.arange(len(sizes))
    keep = (idx % CUT_EVERY == 0) | (sizes <= DENSE_BYTES) | (sizes > table_max)
    around = int(np.searchsorted(sizes, S, side="right"))
    keep[max(0, around - MIN_SIDE):around + MIN_SIDE] = True  # a line on either side of the forced cut
    keep[[0, -1]] = True
    return np.asarray(sizes)[keep]


def fit(data: dict[str, np.ndarray], train: int, netgauge: dict[str, Any]) -> dict[str, Any]:
    """The loggp fit (measurement.loggp.fit's form) of an imported Netgauge table's records,
    with Netgauge's own parameters beside it."""
    sizes, _, tables = loggp.per_round(data)
    T = np.nanmedian(tables["pingpong"], axis=0)
    table_max = int(netgauge["sizes_bytes"][1])
    dense = sizes <= table_max
    S, note = rendezvous_limit(sizes[dense], T[dense])
    out = loggp.fit(data, train=train, S=S, class_sizes=class_sizes(sizes, S, table_max), anchor=True)
    # a class starts above the last size of the one before; the one above S starts at S + 1
    below = sizes[sizes <= S]
    for c in out.get("size_classes", []):
        if len(below) and int(below[-1]) < c["min_bytes"] <= S + 1:
            c["min_bytes"] = S + 1
    if len(sizes) > int(dense.sum()):
        note += (f"; sizes above {table_max} B ({int(sizes[~dense][0])} B to {int(sizes[-1])} B) are the run's "
                 "ping-pong medians, ping-pongs only")
    out["notes"] = [note] + [x for x in out.get("notes", []) if "send_done" not in x]
    out["method"] = (f"Netgauge's LogGP table ({len(sizes)} sizes, {int(sizes[0])} B to {int(sizes[-1])} B, "
                     f"trains of {train}), fitted by cloudnoise's loggp estimator; S from the step in the "
                     "one-way times, no exchange measured")
    out["netgauge"] = netgauge
    return out
