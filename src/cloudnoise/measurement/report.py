"""Print a measurement's summary: an OSU-like table, or one JSON object."""

from __future__ import annotations

import json
from typing import Any

import click
from rich.table import Table

from cloudnoise.console import stdout_console, write_csv
from cloudnoise.measurement.campaign import Campaign

# column key -> header, for each kind of result
PINGPONG_COLUMNS = [
    ("connections", "Conns"),
    ("interval_s", "Interval (s)"),
    ("size_bytes", "Size (B)"),
    ("samples", "Samples"),
    ("min_us", "Min (us)"),
    ("median_us", "Median (us)"),
    ("mean_us", "Mean (us)"),
    ("p99_us", "p99 (us)"),
    ("max_us", "Max (us)"),
    ("bandwidth_gbps", "Bandwidth (Gb/s)"),
]
OS_NOISE_COLUMNS = [
    ("rank", "Rank"), ("host", "Host"), ("t_min_ns", "t_min (ns)"), ("threshold_ns", "Threshold (ns)"),
    ("detours", "Detours"), ("detours_per_s", "Per s"), ("noise_fraction", "Noise fraction"),
    ("median_detour_us", "Median (us)"), ("max_detour_us", "Max (us)"),
]


def document(experiment: str, campaign: Campaign, summary: dict[str, Any]) -> dict[str, Any]:
    """The JSON object `--json` prints."""
    meta = campaign.meta
    exp = meta.get("experiments", {}).get(experiment, {})
    doc = {
        "experiment": experiment,
        "campaign": str(campaign.root),
        "complete": bool(exp.get("complete")),
        "labels": meta.get("labels", {}),
        "hosts": meta.get("hosts", []),
        "mpi": meta.get("mpi", {}),
        "timer": meta.get("timer", {}),
        "samples": summary.get("samples", 0),
        "results": summary.get("results", []),
    }
    for key in ("table2", "loggp", "trace", "slices", "precision", "parquet_bytes"):
        if key in summary:
            doc[key] = summary[key]
    return doc


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        if value == 0 or abs(value) >= 1000:
            return f"{value:.0f}" if abs(value) >= 1000 else "0"
        return f"{value:.4g}" if abs(value) < 1 else f"{value:.2f}"
    return str(value)


def emit(doc: dict[str, Any], as_json: bool = False, as_csv: bool = False) -> None:
    """Print a measurement's `document`: one JSON object, the table as CSV, or
    an OSU-like table with the timer, Table II figures and where the samples are."""
    if as_json:
        click.echo(json.dumps(doc, indent=2, default=str))
        return
    experiment = doc["experiment"]
    rows = doc.get("results", [])
    if as_csv and experiment == "loggp":
        from cloudnoise.measurement.loggp_report import write_fit_csv

        write_fit_csv(doc.get("loggp", {}))
        return
    if as_csv:
        columns = OS_NOISE_COLUMNS if experiment == "os-noise" else PINGPONG_COLUMNS
        keys = [k for k, _ in columns if any(k in r for r in rows)]
        write_csv(keys, ([r.get(k) for k in keys] for r in rows))
        return
    console = stdout_console()
    timer = doc.get("timer", {})
    console.print(f"# cloudnoise {experiment}: {doc.get('mpi', {}).get('library', '')}")
    if timer:
        console.print(f"# timer {timer.get('name')}: resolution {timer.get('resolution_ns'):.0f} ns, "
                      f"overhead {timer.get('overhead_ns'):.1f} ns per read")
    if experiment == "loggp":
        from cloudnoise.measurement.loggp_report import print_fit

        print_fit(console, doc.get("loggp", {}))
    else:
        columns = OS_NOISE_COLUMNS if experiment == "os-noise" else PINGPONG_COLUMNS
        present = [(k, h) for k, h in columns if any(k in r for r in rows)]
        table = Table(*[h for _, h in present])
        for row in rows:
            table.add_row(*[_fmt(row.get(k, "")) for k, _ in present])
        console.print(table)
    t2 = doc.get("table2")
    if t2:
        parts = []
        if "min_latency_us" in t2:
            norm = t2["latency_normalized"]
            parts.append(f"latency min {t2['min_latency_us']:.3f} us, mean {t2['mean_latency_us']:.3f} us; "
                         f"normalised p50 {norm['p50']:.2f} p99 {norm['p99']:.2f} "
                         f"p99.9 {norm['p99.9']:.2f} max {norm['max']:.1f}")
        if "max_bandwidth_gbps" in t2:
            parts.append(f"bandwidth max {t2['max_bandwidth_gbps']:.2f} Gb/s, "
                         f"mean {t2['mean_bandwidth_gbps']:.2f} Gb/s at {t2['bandwidth_size_bytes']} B")
        for p in parts:
            console.print("# " + p)
    if "trace" in doc:
        console.print(f"# OS-noise trace: {doc['trace']}")
    console.print(f"# samples in {doc['campaign']}")
