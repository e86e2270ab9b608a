"""Print a LogGP(S) fit: the parameters with their spread over rounds, the
size classes, and every measured operation beside what the parameters
predict for it, per size (what `cloudnoise measure loggp` shows)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from cloudnoise.measurement.loggp import OPERATIONS, REPRODUCE_TOLERANCE

HEADERS = {
    "pingpong": "T=RTT/2",
    "exchange": "exchange",
    "train": "PRTT(n,0)",
    "delayed": "PRTT(n,d)",
    "isend": "isend",
    "recv_early": "recv early",
    "recv_late": "recv late",
}


def _ns(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:.0f}" if abs(v) >= 100 else f"{v:.3g}"


def _spread(fit: dict[str, Any], key: str) -> str:
    s = fit.get("spread", {}).get(key)
    if not s or s.get("iqr") is None or s["iqr"] != s["iqr"]:
        return ""
    return f"{s['iqr']:.3g}"


def print_fit(console: Console, fit: dict[str, Any]) -> None:
    """Parameters, classes, per-size residuals and notes of one fit."""
    if "size_classes" not in fit:  # a campaign measured before size classes: its parameters only
        table = Table("Parameter", "Value", "Meaning")
        for key, meaning in fit.get("meaning", {}).items():
            table.add_row(key, _ns(fit.get(key)) if isinstance(fit.get(key), (int, float)) else str(fit.get(key)),
                          meaning)
        console.print(table)
        return
    rounds = fit.get("rounds_used", [])
    table = Table("Parameter", "Value", f"IQR over {len(rounds)} rounds", "Meaning",
                  title="LogGP(S) parameters (median of the per-round estimates)")
    for key in ("L", "o", "o_s", "o_r", "o_r_late", "g", "S"):
        table.add_row(key, _ns(fit.get(key)), _spread(fit, key), fit.get("meaning", {}).get(key, ""))
    console.print(table)
    classes = Table("Class", "From (B)", "L (ns)", "IQR", "G (ns/B)", "IQR", "O (ns/B)", "IQR",
                    title=f"Size classes (their lines miss T and the exchange by {fit.get('class_max_miss', 0):.1%} at most)")
    for i, c in enumerate(fit["size_classes"]):
        classes.add_row(str(i), str(c["min_bytes"]), _ns(c["L"]), _spread(fit, f"class{i}.L"),
                        f"{c['G']:.4g}", _spread(fit, f"class{i}.G"), f"{c['O']:.4g}", _spread(fit, f"class{i}.O"))
    console.print(classes)
    per = Table("Size (B)", "Class", *(HEADERS[op] for op in OPERATIONS),
                title=f"Measured median (ns) and the model's residual, train n = {fit.get('train_length')}")
    for row in fit.get("per_size", []):
        cells = []
        for op in OPERATIONS:
            v, r = row.get(f"{op}_ns"), row.get(f"{op}_residual")
            if v is None or r is None:
                cells.append("-")
                continue
            colour = "red" if abs(r) > REPRODUCE_TOLERANCE else "green"
            cells.append(f"{_ns(v)} [{colour}]{r:+.0%}[/]")
        per.add_row(str(row["size_bytes"]) + ("" if row.get("eager") else " R"), str(row.get("class", "")), *cells)
    console.print(per)
    console.print("# R: rendezvous (above S). Residual: (model - measured) / measured.")
    model = fit.get("overhead_model", {})
    if model:
        console.print(f"# one o: median |residual| {model['one_o_median_abs_residual']:.1%}; separate o_s/o_r: "
                      f"{model['split_o_median_abs_residual']:.1%}"
                      + (" (better: the engine's one o misses it)" if model.get("split_predicts_better") else ""))
    core = fit.get("core_latency_ns") or {}
    if core.get("probes") and core.get("used") is not None:
        console.print(f"# machine state: a cache line between the two ranks' cores took {core['used']:.0f} ns "
                      f"(median of the rounds used; {core['min']:.0f}-{core['max']:.0f} ns over {core['probes']} "
                      "probes; docs/explanation/measurement.md, 'Where the ranks' cores are')")
    for note in fit.get("notes", []):
        console.print(f"# note: {note}")


def write_fit_csv(fit: dict[str, Any]) -> None:
    """The per-size table of a fit as CSV (`measure loggp --csv`): one row per
    size with each operation's measured median (ns) and the model's residual."""
    from cloudnoise.console import write_csv

    columns = ["size_bytes", "class", "eager"] + [f"{op}_{part}" for op in OPERATIONS for part in ("ns", "residual")]
    write_csv(columns, ([row.get(c) for c in columns] for row in fit.get("per_size", [])))
