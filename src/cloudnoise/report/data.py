"""Load what a report is made of: measurement campaigns and sweep results.

A campaign is what ``cloudnoise measure`` wrote (metadata.json, summary.json,
per experiment samples.parquet (a file, or a folder of Parquet files written
while the run went on) and summary.json). The per-size rows and the Table II
quantities are read from the summaries the measure stage computed;
sample-level views (noise over time) use the measure stage's streaming
summaries and read the Parquet a row group at a time
(``cloudnoise.measurement.summary_reader``), so the report never re-derives a
number differently nor loads an hour of samples.

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

from cloudnoise.errors import CloudnoiseError

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
        return experiment in self.experiments and (self.root / experiment / "samples.parquet").exists()

    def table2(self) -> dict[str, Any]:
        """The campaign's Table II row (min/mean latency, max/mean bandwidth)."""
        return dict(self.summary.get("table2") or {})

    def runs(self, experiment: str) -> list[Any]:
        """The experiment's planned probe launches, as the measure stage stored them."""
        from cloudnoise.measurement.experiments import Run

        plan = (self.meta.get("experiments", {}).get(experiment) or {}).get("plan") or []
        return [Run.from_dict(r) for r in plan]


def campaign_name(meta: dict[str, Any], root: Path) -> str:
    """A campaign's display name: its `system` label, else its directory name."""
    from cloudnoise.measurement.placement import one_host_name, single_host

    labels = meta.get("labels") or {}
    name = labels.get("system") or root.resolve().name
    if single_host(meta):  # said wherever its figures appear: it is not a network
        return one_host_name(str(name))
    distance = labels.get("distance")
    return f"{name} ({distance})" if distance and distance != "unknown" else str(name)


def load_campaign(root: Path) -> CampaignData:
    """Read a campaign directory (its metadata and summaries checked against their
    schemas); a directory without metadata.json is an error."""
    from cloudnoise.measurement.campaign_files import read_experiment_summary, read_metadata, read_summary

    root = _existing_dir(Path(root), "campaign")
    if not (root / "metadata.json").is_file():
        raise CloudnoiseError(f"{root}: not a measurement campaign (no metadata.json; see `cloudnoise measure`)")
    meta = read_metadata(root)
    summary = read_summary(root)
    experiments: dict[str, dict[str, Any]] = {}
    for name in (meta.get("experiments") or {}):
        found = read_experiment_summary(root, name)
        if found is not None:
            experiments[name] = found
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


def load_sweep(root: Path) -> SweepData:
    """Read a sweep directory through the sweep stage's own loader (results.parquet,
    or the finished tasks' parts when the sweep is incomplete; a repetition saved
    twice counts once)."""
    from cloudnoise.sweep.store import SweepStore, by_config, load_results

    root = _existing_dir(Path(root), "sweep")
    meta = SweepStore(root).read_meta()
    if meta is None:
        raise CloudnoiseError(f"{root}: not a sweep (no sweep.json; see `cloudnoise sweep`)")
    table = load_results(root)
    if table.num_rows == 0:
        raise CloudnoiseError(f"{root}: sweep has no results yet (no results.parquet or parts/*.parquet)")
    shown = _shown_systems(meta)
    sweep = SweepData(root, meta, _renamed(by_config(table), shown))
    if "compute_ns" in table.column_names:
        sweep.compute_ns = _renamed(by_config(table, "compute_ns"), shown)
        sweep.communication_ns = _renamed(by_config(table, "communication_ns"), shown)
    if shown:
        sweep.meta = {**meta, "systems": [shown.get(str(s), s) for s in meta.get("systems") or []]}
    return sweep


def _shown_systems(meta: dict[str, Any]) -> dict[str, str]:
    """Systems whose profile was measured on one host, with the name every figure and
    observation of the report gives them: `NAME (one host, shared memory)`."""
    from cloudnoise.measurement.placement import one_host_name, one_host_systems

    return {name: one_host_name(name) for name in one_host_systems(meta)}


def _renamed(by: dict[tuple[str, int, str], np.ndarray], shown: dict[str, str]) -> dict[tuple[str, int, str], np.ndarray]:
    return {(shown.get(s, s), n, v): a for (s, n, v), a in by.items()} if shown else by
