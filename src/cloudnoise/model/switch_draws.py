"""The paper authors' network semantics, as a profile part ("switch draws").

De Sensi et al. simulated their systems with a modified LogGOPSim (the SC'22
artifact's `simulations/LogGOPSim`, driven by `simulations/simulate.py`). Where
it differs from the public LogGOPSim that cloudnoise reproduces otherwise:

* each message's L and G are picked uniformly from measured samples, a "near"
  set for two ranks under one switch (rank // nodes_per_switch equal) and a
  "far" set otherwise; without network noise each set is one value, and it
  is the same rack's L and G for near and far alike (their simulator ignores
  its far L and G options: only sample files give it a far set);
* the samples are Netgauge's ping-pong round trips, warm-up rows dropped
  (`index % 1000 > 20` of each file), converted to whole picoseconds, and
  scaled so that their median is L (latency, 1-byte round trips) or G
  (bandwidth, round trip / size of 16 MiB messages);
* a message's bytes are charged in 16 MiB blocks, each at its own G;
* a rendezvous message (size > S) arrives 2 L later.

The engine implements the rules (src/engine/noise/switch_draws.hpp); this
module holds the profile's part (nodes per switch and the raw samples, in a
compressed NumPy file beside the profile) and turns it into the engine's sets
for a placement and a noise variant. For a different-racks simulation the
authors passed near and far sets made from the same (different-racks) run,
scaled to the same-rack and the different-racks L and G respectively; for a
same-rack one, the same-rack run's samples as both.
"""

from __future__ import annotations

import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.provenance import Provenance

#: Arrays a samples file holds: raw (unscaled) picoseconds per placement.
SAMPLE_ARRAYS = (
    "same_rack_latency_ps", "same_rack_gap_ps", "different_racks_latency_ps", "different_racks_gap_ps",
)
_MAX_VALUE = 10**17  # ps (or ps per byte): the engine's time limit
_MAX_SAMPLES = 10_000_000


@dataclass(frozen=True)
class SwitchDraws:
    """The profile part: selects the authors' semantics for the profile's simulations."""

    provenance: Provenance
    nodes_per_switch: int
    # A .npz file beside the profile with SAMPLE_ARRAYS (None: no network
    # noise, the near/far parameters only).
    samples: str | None = None
    note: str | None = None

    def __post_init__(self) -> None:
        n = self.nodes_per_switch
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 2**31:
            raise CloudnoiseError(f"switch_draws: nodes_per_switch must be an integer >= 1, got {n!r}")

    def load_samples(self, path: Path) -> RawSamples:
        """The raw samples from `path`, checked: the profile resolves the file it names
        (`samples`) by its rule for side files (model/profile.py)."""
        return read_samples(path)


@dataclass(frozen=True)
class RawSamples:
    """Per placement, latency round trips (ps) and gaps (ps per byte), before scaling."""

    arrays: dict[str, np.ndarray]

    def latency(self, placement: str) -> np.ndarray | None:
        return self.arrays.get(f"{placement.replace('-', '_')}_latency_ps")

    def gap(self, placement: str) -> np.ndarray | None:
        return self.arrays.get(f"{placement.replace('-', '_')}_gap_ps")


def read_samples(path: Path) -> RawSamples:
    """A samples file: only SAMPLE_ARRAYS, 1-D integer arrays of values in [0, 10^17]."""
    try:
        with np.load(path, allow_pickle=False) as z:
            names = list(z.files)
            unknown = sorted(set(names) - set(SAMPLE_ARRAYS))
            if unknown:
                raise CloudnoiseError(f"{shown(path)}: unknown array {unknown[0]!r} (known: {', '.join(SAMPLE_ARRAYS)})")
            arrays = {}
            for name in names:
                a = z[name]
                if a.ndim != 1 or a.dtype.kind not in "iu" or not 1 <= a.size <= _MAX_SAMPLES:
                    raise CloudnoiseError(f"{shown(path)}: {name} must be a 1-D integer array of 1 to "
                                          f"{_MAX_SAMPLES} samples")
                a = a.astype(np.int64)
                if a.min() < 0 or a.max() > _MAX_VALUE:
                    raise CloudnoiseError(f"{shown(path)}: {name} holds values outside [0, 10^17]")
                arrays[name] = a
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as err:
        raise CloudnoiseError(f"{shown(path)}: not a readable samples file (.npz): {err}") from None
    return RawSamples(arrays)


def scaled_to_median(raw: np.ndarray, target: int) -> np.ndarray:
    """The authors' scaling: each sample times target / median, truncated to an integer."""
    median = float(np.median(raw))
    if median <= 0:
        raise CloudnoiseError("switch draws: a sample set's median is 0; it cannot be scaled")
    return (raw * (target / median)).astype(np.int64)


@dataclass(frozen=True)
class SwitchSets:
    """The engine's near and far sets for one placement and variant (L in ps, G in fs per byte)."""

    nodes_per_switch: int
    near_L_ps: np.ndarray
    near_G_fs: np.ndarray
    far_L_ps: np.ndarray
    far_G_fs: np.ndarray

    @property
    def random(self) -> bool:
        return any(a.size > 1 for a in (self.near_L_ps, self.near_G_fs, self.far_L_ps, self.far_G_fs))


def switch_sets(nodes_per_switch: int, near: tuple[int, int], far: tuple[int, int],
                samples: RawSamples | None, placement: str, with_noise: bool) -> SwitchSets:
    """The sets for `placement` ("same-rack" or "different-racks"): near =
    (L_ps, G_ps) of the same rack, far = those of the placement. With noise
    and samples, the placement's run's samples scaled to each; without, one
    value each. A G in whole ps per byte, as the authors passed it."""
    def one(v: int) -> np.ndarray:
        return np.array([v], dtype=np.int64)

    if not with_noise or samples is None:
        # Near for every message, at either placement: the authors' simulator
        # parses --LogGOPS_L_far and --LogGOPS_G_far but never reads them
        # (without sample files its far set is the near one), so their
        # noiseless and OS-noise-only runs across racks charged the same
        # rack's L and G (with the different-racks o, g and S).
        return SwitchSets(nodes_per_switch, one(near[0]), one(near[1] * 1000), one(near[0]), one(near[1] * 1000))
    if placement == "same-rack":
        far = near
    lat, gap = samples.latency(placement), samples.gap(placement)
    if lat is None or gap is None:
        raise CloudnoiseError(f"switch draws: the samples file has no {placement} latency and gap samples")
    return SwitchSets(
        nodes_per_switch,
        scaled_to_median(lat, near[0]), scaled_to_median(gap, near[1]) * 1000,
        scaled_to_median(lat, far[0]), scaled_to_median(gap, far[1]) * 1000,
    )
