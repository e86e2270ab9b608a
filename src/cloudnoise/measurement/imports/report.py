"""Print what an import wrote: one line per experiment, the Table II row, and what was left out."""

from __future__ import annotations

import json

from cloudnoise.console import stdout_console
from cloudnoise.measurement.imports.netgauge import ImportResult


def print_import(result: ImportResult) -> None:
    console = stdout_console()
    p = result.provenance
    console.print(f"# imported {p.get('tool')} {', '.join(p.get('versions') or ['?'])} run {p.get('run')} "
                  f"from {p.get('source')}")
    for name, samples in sorted(result.experiments.items()):
        console.print(f"  {name:28s} {samples:>9d} samples")
    summary_path = result.campaign / "summary.json"
    t2 = json.loads(summary_path.read_text()).get("table2", {}) if summary_path.is_file() else {}
    if "min_latency_us" in t2:
        console.print(f"# latency min {t2['min_latency_us']:.3f} us, mean {t2['mean_latency_us']:.3f} us "
                      f"({t2.get('latency_from')})")
    if "max_bandwidth_gbps" in t2:
        console.print(f"# bandwidth max {t2['max_bandwidth_gbps']:.2f} Gb/s, mean {t2['mean_bandwidth_gbps']:.2f} Gb/s "
                      f"({t2.get('bandwidth_from')})")
    console.print(f"# warm-up: {p.get('warmup')}")
    for name, why in sorted((p.get("not_imported") or {}).items()):
        console.print(f"# not imported: {name}: {why}")
    for note in p.get("salvaged") or []:
        console.print(f"# salvaged: {note}")
    console.print(f"# campaign in {result.campaign}")
