"""Load what a report is made of: measurement campaigns and sweep results.

A campaign is what ``cloudnoise measure`` wrote (metadata.json, summary.json,
per experiment samples.parquet and summary.json). The per-size rows and the
Table II quantities are read from the summaries the measure stage computed;
sample-level views (noise over time) reduce the Parquet samples with the same
functions the measure stage uses (``cloudnoise.measure.tables``), so the
report never re-derives a number differently.

A sweep is what ``cloudnoise sweep`` writes: ``sweep.json`` (format
``cloudnoise-sweep/1``) and ``results.parquet`` with one row per (system,
nodes, variant, rep), or only ``parts/*.parquet`` while it is incomplete.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from cloudnoise.errors import CloudnoiseError

SWEEP_FORMAT = "cloudnoise-sweep/1"
SWEEP_COLUMNS = ("system", "nodes", "variant", "rep", "runtime_ns")
VARIANT_ORDER = ("none", "os", "network", "both")


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text())
    except OSError as err:
        raise CloudnoiseError(f"{path}: cannot read ({err.strerror or err})") from None
    except ValueError as err:
        raise CloudnoiseError(f"{path}: not valid JSON ({err})") from None
    if not isinstance(data, dict):
        raise CloudnoiseError(f"{path}: expected a JSON object")
    return data


def _existing_dir(path: Path, what: str) -> Path:
    if not path.exists():
        raise CloudnoiseError(f"{path}: no such {what} directory")
    if not path.is_dir():
        raise CloudnoiseError(f"{path}: not a directory (expected a {what} directory)")
    return path


@dataclass
class CampaignData:
    """One measurement campaign: its metadata and experiment summaries."""

    root: Path
    name: str
    meta: dict[str, Any]
    summary: dict[str, Any]  # CAMPAIGN/summary.json (may be empty)
    experiments: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> EXP/summary.json

    def has(self, experiment: str) -> bool:
        """Whether the experiment has a summary and its samples on disk."""
        return experiment in self.experiments and (self.root / experiment / "samples.parquet").is_file()

    def table2(self) -> dict[str, Any]:
        """The campaign's Table II row (min/mean latency, max/mean bandwidth)."""
        return dict(self.summary.get("table2") or {})

    def runs(self, experiment: str) -> list[Any]:
        """The experiment's planned probe launches, as the measure stage stored them."""
        from cloudnoise.measure.experiments import Run

        plan = (self.meta.get("experiments", {}).get(experiment) or {}).get("plan") or []
        return [Run.from_dict(r) for r in plan]

    def rtt_samples(self, experiment: str, columns: tuple[str, ...]) -> dict[str, np.ndarray]:
        """The experiment's ping-pong (RTT) samples, only `columns` of them, as int64
        numpy columns (``wall_ns`` is the sample's wall-clock time in ns). Rows of
        other kinds and unused columns are never loaded: a one-minute latency-noise
        run on shared memory holds tens of millions of samples."""
        path = self.root / experiment / "samples.parquet"
        try:
            names = pq.read_schema(path).names
            param = "param" if "param" in names else "interval_ns"
            source = {"wall_ns": "time", "param": param}
            table = pq.read_table(path, columns=[source.get(c, c) for c in columns], filters=[("kind", "=", "rtt")])
        except (OSError, pa.ArrowException) as err:
            raise CloudnoiseError(f"{path}: cannot read samples ({err})") from None
        out: dict[str, np.ndarray] = {}
        for name in columns:
            col = table.column(source.get(name, name))
            if name == "wall_ns":
                col = col.cast(pa.int64())
            out[name] = col.to_numpy().astype(np.int64, copy=False)
        return out


def campaign_name(meta: dict[str, Any], root: Path) -> str:
    """A campaign's display name: its `system` label, else its directory name."""
    labels = meta.get("labels") or {}
    name = labels.get("system") or root.resolve().name
    distance = labels.get("distance")
    return f"{name} ({distance})" if distance and distance != "unknown" else str(name)


def load_campaign(root: Path) -> CampaignData:
    """Read a campaign directory; a directory without metadata.json is an error."""
    root = _existing_dir(Path(root), "campaign")
    meta_path = root / "metadata.json"
    if not meta_path.is_file():
        raise CloudnoiseError(f"{root}: not a measurement campaign (no metadata.json; see `cloudnoise measure`)")
    meta = _read_json(meta_path)
    summary = _read_json(root / "summary.json") if (root / "summary.json").is_file() else {}
    experiments: dict[str, dict[str, Any]] = {}
    for name in (meta.get("experiments") or {}):
        path = root / name / "summary.json"
        if path.is_file():
            experiments[name] = _read_json(path)
    return CampaignData(root, campaign_name(meta, root), meta, summary, experiments)


@dataclass
class SweepData:
    """One sweep: its description and runtimes per (system, nodes, variant)."""

    root: Path
    meta: dict[str, Any]
    runtimes_ns: dict[tuple[str, int, str], np.ndarray]
    compute_ns: dict[tuple[str, int, str], np.ndarray] = field(default_factory=dict)
    communication_ns: dict[tuple[str, int, str], np.ndarray] = field(default_factory=dict)

    @property
    def experiment(self) -> dict[str, Any]:
        return dict(self.meta.get("experiment") or {})

    @property
    def title(self) -> str:
        """What was simulated, e.g. ``dissemination:16B``, with the paper's figure if any."""
        exp = self.experiment
        text = str(exp.get("spec") or exp.get("name") or self.root.name)
        return f"{text} (as {exp['figure']})" if exp.get("figure") else text

    @property
    def complete(self) -> bool:
        return bool(self.meta.get("complete"))

    def systems(self) -> list[str]:
        """Systems in sweep.json order (then any others found in the results)."""
        found = {k[0] for k in self.runtimes_ns}
        listed = [str(s) for s in self.meta.get("systems") or [] if str(s) in found]
        return listed + sorted(found - set(listed))

    def nodes(self, system: str | None = None) -> list[int]:
        return sorted({k[1] for k in self.runtimes_ns if system is None or k[0] == system})

    def variants(self, system: str | None = None) -> list[str]:
        found = {k[2] for k in self.runtimes_ns if system is None or k[0] == system}
        return [v for v in VARIANT_ORDER if v in found] + sorted(found - set(VARIANT_ORDER))

    def get(self, system: str, nodes: int, variant: str) -> np.ndarray | None:
        return self.runtimes_ns.get((system, nodes, variant))


def group_runtimes(
    system: np.ndarray, nodes: np.ndarray, variant: np.ndarray, rep: np.ndarray, values: np.ndarray
) -> dict[tuple[str, int, str], np.ndarray]:
    """values grouped by (system, nodes, variant), in repetition order; a repetition
    present twice (a part re-run after an interruption) counts once (the last one)."""
    sys_u, sys_i = np.unique(system.astype(str), return_inverse=True)
    var_u, var_i = np.unique(variant.astype(str), return_inverse=True)
    nodes = nodes.astype(np.int64)
    rep = rep.astype(np.int64)
    # sort by key, then repetition; among duplicates keep the last row read
    order = np.lexsort((np.arange(len(rep)), rep, var_i, nodes, sys_i))
    s, n, v, r = sys_i[order], nodes[order], var_i[order], rep[order]
    last = np.ones(len(order), bool)
    last[:-1] = (s[1:] != s[:-1]) | (n[1:] != n[:-1]) | (v[1:] != v[:-1]) | (r[1:] != r[:-1])
    order, s, n, v = order[last], s[last], n[last], v[last]
    starts = np.flatnonzero(np.r_[True, (s[1:] != s[:-1]) | (n[1:] != n[:-1]) | (v[1:] != v[:-1])])
    out: dict[tuple[str, int, str], np.ndarray] = {}
    for a, b in zip(starts, np.r_[starts[1:], len(order)]):
        out[(str(sys_u[s[a]]), int(n[a]), str(var_u[v[a]]))] = values[order[a:b]].astype(np.float64)
    return out


def load_sweep(root: Path) -> SweepData:
    """Read a sweep directory (results.parquet, or parts/*.parquet when incomplete)."""
    root = _existing_dir(Path(root), "sweep")
    meta_path = root / "sweep.json"
    if not meta_path.is_file():
        raise CloudnoiseError(f"{root}: not a sweep (no sweep.json; see `cloudnoise sweep`)")
    meta = _read_json(meta_path)
    if meta.get("format") != SWEEP_FORMAT:
        raise CloudnoiseError(f"{meta_path}: unknown format {meta.get('format')!r} (expected {SWEEP_FORMAT})")
    files = [root / "results.parquet"] if (root / "results.parquet").is_file() else sorted(
        (root / "parts").glob("*.parquet"))
    if not files:
        raise CloudnoiseError(f"{root}: sweep has no results yet (no results.parquet or parts/*.parquet)")
    tables = []
    for path in files:
        try:
            tables.append(pq.read_table(path))
        except (OSError, pa.ArrowException) as err:
            raise CloudnoiseError(f"{path}: cannot read results ({err})") from None
    for path, t in zip(files, tables):
        missing = [c for c in SWEEP_COLUMNS if c not in t.column_names]
        if missing:
            raise CloudnoiseError(f"{path}: missing column(s) {', '.join(missing)}")
    cols: dict[str, np.ndarray] = {}
    for name in SWEEP_COLUMNS + ("compute_ns", "communication_ns"):
        if all(name in t.column_names for t in tables):
            cols[name] = np.concatenate([t.column(name).to_numpy(zero_copy_only=False) for t in tables])
    if len(cols["runtime_ns"]) == 0:
        raise CloudnoiseError(f"{root}: sweep has no result rows yet")
    key = (cols["system"].astype(str), cols["nodes"].astype(np.int64), cols["variant"].astype(str), cols["rep"])
    sweep = SweepData(root, meta, group_runtimes(*key, cols["runtime_ns"].astype(np.float64)))
    if "compute_ns" in cols:
        sweep.compute_ns = group_runtimes(*key, cols["compute_ns"].astype(np.float64))
    if "communication_ns" in cols:
        sweep.communication_ns = group_runtimes(*key, cols["communication_ns"].astype(np.float64))
    return sweep
