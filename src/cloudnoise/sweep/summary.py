"""A sweep's results in brief: per system, node count and variant, the
distribution of runtimes and how much noise adds to the median."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from cloudnoise.simulation.statistics import summarize
from cloudnoise.measurement.placement import TWO_NODES_HINT, one_host_name, one_host_systems
from cloudnoise.sweep.store import SweepStore, by_config, load_results


def summary_rows(directory: str | Path) -> list[dict[str, Any]]:
    """One row per (system, nodes, variant) in grid order: boxplot statistics of
    runtime_ns (the median with its distribution-free 95% interval) and `median_increase`, the median's increase over the `none`
    variant of the same system and nodes (None without a `none` variant)."""
    groups = by_config(load_results(directory))
    medians = {k: float(np.median(v)) for k, v in groups.items()}
    rows = []
    for (s, n, v), values in groups.items():  # insertion order = grid order
        st = summarize(values)
        base = medians.get((s, n, "none"))
        rows.append({
            "system": s,
            "nodes": n,
            "variant": v,
            "n": st.n,
            "median_ns": st.median,
            "median_ci_low_ns": st.median_ci_low,
            "median_ci_high_ns": st.median_ci_high,
            "mean_ns": st.mean,
            "q1_ns": st.q1,
            "q3_ns": st.q3,
            "max_ns": st.max,
            "median_increase": None if base is None or base <= 0 else medians[(s, n, v)] / base - 1.0,
        })
    return rows


SUMMARY_COLUMNS = ("system", "nodes", "variant", "n", "median_ns", "median_ci_low_ns", "median_ci_high_ns", "mean_ns",
                   "q1_ns", "q3_ns", "max_ns", "median_increase")


def write_summary_csv(rows: list[dict[str, Any]]) -> None:
    """The summary rows as CSV on stdout (`--csv`)."""
    from cloudnoise.console import write_csv

    write_csv(SUMMARY_COLUMNS, ([r[c] for c in SUMMARY_COLUMNS] for r in rows))


def print_summary(rows: list[dict[str, Any]], outcome: Any, out: str | Path) -> None:
    """The rows as a table, and where the results are."""
    from rich import box
    from rich.table import Table

    from cloudnoise.console import stdout_console

    from cloudnoise.units import format_time_ps

    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, title=f"{outcome.meta['experiment']['name']}: runtime per run")
    for col, justify in (("system", "left"), ("nodes", "right"), ("variant", "left"), ("reps", "right"),
                         ("median", "right"), ("mean", "right"), ("max", "right"), ("vs none", "right")):
        t.add_column(col, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    one_host = one_host_systems(outcome.meta)
    for r in rows:
        inc = r["median_increase"]
        t.add_row(
            one_host_name(r["system"]) if r["system"] in one_host else r["system"], str(r["nodes"]), r["variant"], str(r["n"]),
            format_time_ps(r["median_ns"] * 1000), format_time_ps(r["mean_ns"] * 1000), format_time_ps(r["max_ns"] * 1000),
            "-" if inc is None or r["variant"] == "none" else f"{100 * inc:+.1f}%",
        )
    con = stdout_console()
    con.print(t)
    if one_host:
        con.print(f"{', '.join(sorted(one_host))}: measured on one host (shared memory, not a network); {TWO_NODES_HINT}")
    store = SweepStore(out)
    resumed = f", {outcome.resumed_reps} were saved already" if outcome.resumed_reps else ""
    con.print(
        f"{outcome.reps_total} repetitions in {store.results_path} ({outcome.reps_run} simulated in "
        f"{outcome.seconds:.1f} s by {outcome.tasks_run} tasks{resumed})"
    )
