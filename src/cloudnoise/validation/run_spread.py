"""The measured run-to-run spread of `validate --measured`.

Where several runs of one system measured the same configuration (program,
size, node count), their medians differ: Daint's May runs by a median 2.1x,
its March runs by 1.16x, Azure HPC's not at all (one run). A prediction can
only be judged against that spread: a model 30 % off a configuration whose
runs differ by 3x is inside what the system itself does; one 30 % off runs
that agree within 2 % is wrong. Per configuration measured in two or more
runs: the runs' medians, their spread (largest over smallest), and where
each noise variant's simulated median falls: inside the runs' range, or
below or above it and by how much; then the verdict against the spread (the
share of configurations whose prediction lies inside the range widened by
the 10 % bound) beside the verdict against 10 % alone.
"""

from __future__ import annotations

import statistics
from typing import Any

BOUND = 0.10  # the paper's bound, which widens the measured range for the verdict


def run_spread(rows: list[dict[str, Any]], variants: list[str]) -> dict[str, Any] | None:
    """The spread table of `validate --measured`'s rows; None when no configuration was
    measured in two or more runs."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault((r["pattern"], r["variant"], r["size_bytes"], r["ranks"]), []).append(r)
    configs = []
    for (pattern, variant, size, ranks), rs in sorted(groups.items()):
        runs = sorted({r["run"] for r in rs})
        if len(runs) < 2:
            continue
        medians = [r["measured_median_us"] for r in sorted(rs, key=lambda r: r["run"])]
        lo, hi = min(medians), max(medians)
        where = {}
        for v in variants:
            sim = rs[0]["variants"][v]["simulated_median_us"]
            where[v] = {"simulated_median_us": sim, "position": _position(sim, lo, hi),
                        "inside_with_bound": lo * (1 - BOUND) <= sim <= hi * (1 + BOUND)}
        configs.append({"config": rs[0]["config"], "pattern": pattern, "variant": variant, "size_bytes": size,
                        "ranks": ranks, "runs": [r["run"] for r in sorted(rs, key=lambda r: r["run"])],
                        "measured_medians_us": medians, "spread": hi / lo if lo > 0 else float("inf"),
                        "variants": where})
    if not configs:
        return None
    summary = {}
    for v in variants:
        inside = sum(1 for c in configs if c["variants"][v]["position"] == "inside")
        widened = sum(1 for c in configs if c["variants"][v]["inside_with_bound"])
        summary[v] = {"inside_range": inside, "inside_range_with_bound": widened}
    return {"configs": configs, "configurations": len(configs),
            "median_spread": statistics.median(c["spread"] for c in configs),
            "largest_spread": max(c["spread"] for c in configs), "by_variant": summary, "bound": BOUND}


def _position(sim: float, lo: float, hi: float) -> str:
    """Where a simulated median lies against the runs' medians [lo, hi]."""
    if sim < lo:
        return f"below by {1 - sim / lo:.0%}"
    if sim > hi:
        return f"above by {sim / hi - 1:.0%}"
    return "inside"


def print_spread(spread: dict[str, Any], variants: list[str]) -> None:
    """The spread table and its verdict on stdout."""
    from rich.table import Table

    from cloudnoise.console import stdout_console

    console = stdout_console()
    table = Table(title="measured run-to-run spread: each configuration's medians over its runs (us) and where "
                        "the simulated median falls")
    for col in ("config", "nodes", "runs", "measured medians", "spread", *variants):
        table.add_column(col, justify="left" if col in ("config", "measured medians") else "right")
    for c in spread["configs"]:
        table.add_row(c["config"], str(c["ranks"]), str(len(c["runs"])),
                      " ".join(f"{m:.4g}" for m in c["measured_medians_us"]), f"{c['spread']:.2f}x",
                      *(f"{c['variants'][v]['simulated_median_us']:.4g} ({c['variants'][v]['position']})"
                        for v in variants))
    console.print(table)
    n = spread["configurations"]
    console.print(f"{n} configurations measured in 2 or more runs: their runs' medians differ by a median "
                  f"{spread['median_spread']:.2f}x (largest {spread['largest_spread']:.3g}x)")
    for v in variants:
        s = spread["by_variant"][v]
        console.print(f"  {v}: the prediction lies inside the runs' range for {s['inside_range']} of {n}, inside it "
                      f"widened by {spread['bound']:.0%} for {s['inside_range_with_bound']} of {n}")
