"""Helpers for the tests of `cloudnoise report` (not a test module).

`write_simulated_sweep` produces a sweep directory in the `cloudnoise sweep`
contract (sweep.json + results.parquet) by running the existing engine per
(profile, nodes) with all noise variants on common random numbers; it lives
here, not in the package, because the real sweep command is built elsewhere.
`write_sweep` writes a sweep from given runtimes, for known-answer tests.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.model.profile import SystemProfile
from cloudnoise.profiles.registry import resolve_profile
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.api import simulate_variants
from cloudnoise.simulation.noise import noise_from_profile
from cloudnoise.simulation.params import LogGOPS


def write_sweep(
    root: Path,
    runtimes_ns: dict[tuple[str, int, str], list[float] | np.ndarray],
    *,
    name: str = "test",
    spec: str = "dissemination:16B",
    seed: int = 0,
    complete: bool = True,
    as_parts: bool = False,
) -> Path:
    """A sweep directory holding exactly `runtimes_ns` per (system, nodes, variant)."""
    rows: dict[str, list] = {"system": [], "nodes": [], "variant": [], "rep": [], "seed": [], "runtime_ns": []}
    for (system, nodes, variant), values in runtimes_ns.items():
        for rep, v in enumerate(values):
            rows["system"].append(system)
            rows["nodes"].append(nodes)
            rows["variant"].append(variant)
            rows["rep"].append(rep)
            rows["seed"].append(seed)
            rows["runtime_ns"].append(float(v))
    table = pa.table({
        "system": pa.array(rows["system"], pa.string()),
        "nodes": pa.array(rows["nodes"], pa.int64()),
        "variant": pa.array(rows["variant"], pa.string()),
        "rep": pa.array(rows["rep"], pa.int64()),
        "seed": pa.array(rows["seed"], pa.uint64()),
        "runtime_ns": pa.array(rows["runtime_ns"], pa.float64()),
    })
    root.mkdir(parents=True, exist_ok=True)
    keys = list(runtimes_ns)
    meta = {
        "format": "cloudnoise-sweep/1",
        "experiment": {"name": name, "kind": "collective", "spec": spec, "figure": None},
        "systems": list(dict.fromkeys(k[0] for k in keys)),
        "nodes": sorted({k[1] for k in keys}),
        "variants": list(dict.fromkeys(k[2] for k in keys)),
        "reps": max(len(v) for v in runtimes_ns.values()),
        "seed": seed,
        "complete": complete,
    }
    (root / "sweep.json").write_text(json.dumps(meta, indent=2))
    if as_parts:
        (root / "parts").mkdir(exist_ok=True)
        half = table.num_rows // 2
        pq.write_table(table.slice(0, half), root / "parts" / "part-0000.parquet")
        pq.write_table(table.slice(half), root / "parts" / "part-0001.parquet")
    else:
        pq.write_table(table, root / "results.parquet")
    return root


def simulated_runtimes(
    systems: list[str], nodes: list[int], reps: int, *, size: int = 16, seed: int = 1,
    variants: tuple[str, ...] = ("none", "os", "network", "both"),
) -> dict[tuple[str, int, str], np.ndarray]:
    """Runtimes (ns) of a dissemination of `size` bytes simulated with each profile's noise."""
    out: dict[tuple[str, int, str], np.ndarray] = {}
    for system in systems:
        profile: SystemProfile = resolve_profile(system)
        params = LogGOPS.from_profile(profile)
        noise = noise_from_profile(profile, seed)
        for n in nodes:
            schedule = generate(CollectiveSpec("dissemination", n, size))
            results = simulate_variants(schedule, params=params, noise=noise, variants=list(variants),
                                        reps=reps, seed=seed)
            for variant, r in results.items():
                out[(system, n, variant)] = np.asarray(r.runtime_ns, dtype=np.float64)
    return out


def write_simulated_sweep(root: Path, systems: list[str], nodes: list[int], reps: int, seed: int = 1) -> Path:
    """A small, real sweep of a 16 B dissemination (as Fig. 14) through the engine."""
    return write_sweep(root, simulated_runtimes(systems, nodes, reps, seed=seed), name="dissemination-16B",
                       spec="dissemination:16B", seed=seed)


# --- a campaign from known numbers -------------------------------------------------------------

from cloudnoise.measurement.campaign import Campaign  # noqa: E402
from cloudnoise.measurement.experiments import Run, Unit  # noqa: E402
from cloudnoise.measurement.runner import finalize  # noqa: E402
from cloudnoise.measurement.samples import KIND_DETOUR, KIND_RTT, RECORD  # noqa: E402

WALL0 = 1_700_000_000_000_000_000  # wall clock of monotonic time 0 in the synthetic probes
MONO0 = 5_000_000_000  # monotonic time the synthetic measurement starts


def _write_probe(campaign: Campaign, name: str, records: list[tuple[int, int, int, int, int, int]],
                 info: dict[str, int | str]) -> None:
    """Rank 0's samples as the probes write them: a chunk file (cn_chunks.h), one block
    per (kind, size, param, stream) run of records, each numbered from 0."""
    from measure_support import write_chunk

    from cloudnoise.measurement.chunks import chunk_path

    prefix = campaign.prefix(name, 0, 0)
    prefix.parent.mkdir(parents=True, exist_ok=True)
    rec = np.array(records, dtype=RECORD)
    key = np.stack([rec["kind"], rec["size_bytes"], rec["param"], rec["stream"]], axis=1)
    bounds = [0, *(np.flatnonzero(np.any(np.diff(key, axis=0) != 0, axis=1)) + 1), len(rec)]
    for a, b in zip(bounds[:-1], bounds[1:]):
        r = rec[a:b]
        write_chunk(chunk_path(prefix, 0, 0), int(r["kind"][0]), int(r["stream"][0]), int(r["size_bytes"][0]),
                    int(r["param"][0]), r["t_ns"], r["value_ns"])
    base = {"host": "synthetic-host", "clock_wall_ns": WALL0, "clock_monotonic_ns": 0}
    Path(f"{prefix}.rank0.info").write_text("".join(f"{k}={v}\n" for k, v in {**base, **info}.items()))


def _rtts(size: int, rtts_ns: np.ndarray, spacing_ns: int) -> list[tuple[int, int, int, int, int, int]]:
    return [(KIND_RTT, size, 0, 0, MONO0 + i * spacing_ns, int(v)) for i, v in enumerate(rtts_ns)]


def write_known_campaign(root: Path) -> Path:
    """A campaign written as the probes write raw files, then finalized by the measure stage
    itself (Parquet, summaries), with numbers whose report is known:

    * latency: sizes 1 B, 1 KiB, 64 KiB, 100 samples each, RTT/2 = 1 us + size x 0.01 ns, +10% on odd samples;
    * latency-noise: 10,000 RTT/2 of 1 us, of which 20 (0.2%) are 4 us -> the top 0.1% are 4.0x the minimum;
    * bandwidth-noise: 10,000 samples of 64 KiB at RTT/2 = 5 us, 20 at 10 us -> the bottom 0.1% are 0.5 of the max;
    * os-noise: 1,000 detours of 1 us in 2 s, 10 of them 50 us -> the top 1% are those 10.
    """
    campaign = Campaign(root)
    campaign.meta["labels"] = {"system": "synthetic", "distance": "same-rack"}
    runs = {
        "latency": [Run("cn_pingpong", "pingpong", 2, [Unit(s, 0, 100) for s in (1, 1024, 65536)])],
        "latency-noise": [Run("cn_pingpong", "pingpong", 2, [Unit(1, 0, 0)], duration_s=1.0)],
        "bandwidth-noise": [Run("cn_pingpong", "pingpong", 2, [Unit(65536, 0, 0)], split=True, duration_s=1.0)],
        "os-noise": [Run("cn_detour", "detour", 1, [Unit(0, 0, 0)], duration_s=2.0)],
    }
    for name, plan in runs.items():
        campaign.meta["experiments"][name] = {"plan": [r.as_dict() for r in plan], "complete": True}
    campaign.save()

    records = []
    for size in (1, 1024, 65536):
        half = np.full(100, 1000.0 + size * 0.01)
        half[1::2] *= 1.1
        records += _rtts(size, np.round(2 * half), 10_000)
    _write_probe(campaign, "latency", records, {})

    lat = np.full(10_000, 2000)
    lat[np.arange(20) * 500 + 7] = 8000
    _write_probe(campaign, "latency-noise", _rtts(1, lat, 100_000), {})

    bw = np.full(10_000, 10_000)
    bw[np.arange(20) * 500 + 3] = 20_000
    _write_probe(campaign, "bandwidth-noise", _rtts(65536, bw, 100_000), {})

    durations = np.full(1000, 1000)
    durations[np.arange(10) * 100 + 50] = 50_000
    starts = MONO0 + np.arange(1000) * 2_000_000
    detours = [(KIND_DETOUR, 0, 0, 0, int(s), int(d)) for s, d in zip(starts, durations)]
    _write_probe(campaign, "os-noise", detours, {"begin_monotonic_ns": MONO0, "end_monotonic_ns": MONO0 + 2_000_000_000,
                                                 "t_min_ns": 10, "threshold_ns": 90})
    for name, plan in runs.items():
        finalize(campaign, name, plan)
    campaign.save()
    return root
