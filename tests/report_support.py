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
from cloudnoise.simulate.api import simulate_variants
from cloudnoise.simulate.noise import noise_from_profile
from cloudnoise.simulate.params import LogGOPS


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
                out[(system, n, variant)] = np.asarray(r.max_end_ns, dtype=np.float64)
    return out


def write_simulated_sweep(root: Path, systems: list[str], nodes: list[int], reps: int, seed: int = 1) -> Path:
    """A small, real sweep of a 16 B dissemination (as Fig. 14) through the engine."""
    return write_sweep(root, simulated_runtimes(systems, nodes, reps, seed=seed), name="dissemination-16B",
                       spec="dissemination:16B", seed=seed)
