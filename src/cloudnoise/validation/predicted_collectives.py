"""What a profile predicts for small collectives, with its noise and without:
`model build --check` on an imported campaign.

An imported campaign (a Netgauge run) was measured elsewhere: there is no
machine here to run `validate --suite` on. What can be checked is what the
profile's noise does to the collectives such a system runs: the medians of
the artifact's collective programs (dissemination, pipelined ring, binomial
tree at 16 B and 16 KiB, 4 to 32 nodes) simulated noiseless and with the
profile's noise (`both`), side by side. A noise model that multiplies a
16 us collective's median several times over, where the system's own runs
agree with the noiseless model, is the symptom to look for (a noise model
that does not predict); the
table shows it (or its absence) before any collective run is compared.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# (pattern, size in bytes): the artifact's small collectives (validation/artifact_schedules.py)
COLLECTIVES = (("nwaydissemination", 16), ("nwaydissemination", 16384), ("pipelinedring", 16),
               ("binomialtreebcast", 16))
NODES = (4, 8, 16, 32)


def predicted_collectives(profile: Path, reps: int = 200, seed: int = 0) -> list[dict[str, Any]]:
    """One row per collective and node count: the simulated median without noise and with
    the profile's (`both`), in us, and their ratio."""
    from cloudnoise.simulation.api import simulate

    rows = []
    for pattern, size in COLLECTIVES:
        for nodes in NODES:
            if pattern == "pipelinedring" and size < nodes:
                continue  # a segment of size/nodes bytes: none (the artifact's runs skip these too)
            r = simulate(pattern=pattern, ranks=nodes, size=size, profile=str(profile), noise=["none", "both"],
                         reps=reps, seed=seed,
                         segmentsize=size // nodes if pattern == "pipelinedring" else 1)
            none = r.variants["none"].statistics.median / 1e3
            both = r.variants["both"].statistics.median / 1e3
            rows.append({"pattern": pattern, "size_bytes": size, "nodes": nodes, "none_median_us": none,
                         "both_median_us": both, "ratio": both / none})
    return rows


def print_predicted(rows: list[dict[str, Any]], what: str) -> None:
    """The rows as a table on stdout."""
    from rich.table import Table

    from cloudnoise.console import stdout_console

    t = Table(title=f"predicted collective medians with {what}'s noise beside noiseless (us, `both` / `none`)")
    for col in ("collective", "size", "nodes", "none", "both", "both / none"):
        t.add_column(col, justify="left" if col == "collective" else "right")
    for r in rows:
        t.add_row(r["pattern"], f"{r['size_bytes']} B", str(r["nodes"]), f"{r['none_median_us']:.4g}",
                  f"{r['both_median_us']:.4g}", f"{r['ratio']:.2f}")
    stdout_console().print(t)
