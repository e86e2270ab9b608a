"""The paper-reproduction table: one row per statement, as text, CSV or for HTML."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError
from cloudnoise.paper.statements import format_value

HEADERS = ("statement", "figure", "role", "paper", "allowed", "ours", "agrees", "cause")
RESULT = "paper.json"
FORMAT = "cloudnoise-paper/1"
BEYOND_HEADERS = ("system", "nodes", "median, no noise", "median, network noise", "network / none", "repetitions",
                  "scale")
PAPER_LARGEST_RING = 1024  # the paper's largest 512 MiB ring (paper/beyond.py goes past it)
_KEYS = {"id": str, "figure": str, "role": str, "paper": str, "unit": str, "agrees": bool}


def read_result(folder: Path) -> dict[str, Any]:
    """FOLDER/paper.json, checked: it is data (it may come from someone else),
    so a malformed one is a one-line error, never a traceback."""
    path = Path(folder) / RESULT
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CloudnoiseError(f"{path}: not found; give the --out folder of `cloudnoise paper`") from None
    except (OSError, ValueError) as err:
        raise CloudnoiseError(f"{path}: not readable as JSON ({err})") from None
    bad = f"{path}: not a `cloudnoise paper` result"
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CloudnoiseError(f"{bad} (format is not {FORMAT})")
    stmts = data.get("statements")
    if not isinstance(stmts, list) or not isinstance(data.get("summary"), dict):
        raise CloudnoiseError(f"{bad} (no statements)")
    for d in stmts:
        if not isinstance(d, dict) or any(not isinstance(d.get(k), t) for k, t in _KEYS.items()):
            raise CloudnoiseError(f"{bad} (a statement lacks one of {', '.join(_KEYS)})")
        for k in ("low", "high", "ours"):
            if d.get(k) is not None and not isinstance(d[k], (int, float)):
                raise CloudnoiseError(f"{bad} ({d['id']}: {k} is not a number)")
    for role in ("calibration", "held-out"):
        n = data["summary"].get(role)
        if not isinstance(n, dict) or not all(isinstance(n.get(k), int) for k in ("agree", "total")):
            raise CloudnoiseError(f"{bad} (summary)")
    if not isinstance(data.get("reps"), int) or not isinstance(data.get("seed"), int):
        raise CloudnoiseError(f"{bad} (reps, seed)")
    beyond = data.get("beyond")
    if beyond is not None:
        points = beyond.get("points") if isinstance(beyond, dict) else None
        if not isinstance(points, list) or not all(
            isinstance(p, dict) and isinstance(p.get("system"), str) and isinstance(p.get("nodes"), int)
            and isinstance(p.get("variant"), str) and isinstance(p.get("reps"), int)
            and all(isinstance(p.get(k), (int, float)) for k in ("median_ns", "q1_ns", "q3_ns"))
            for p in points
        ):
            raise CloudnoiseError(f"{bad} (beyond: points need system, nodes, variant, reps, median_ns, q1_ns, q3_ns)")
    return data


def _allowed(d: dict[str, Any]) -> str:
    low, high, unit = d["low"], d["high"], d["unit"]
    u = "" if unit in ("x", "count", "%") else f" {unit}"
    pct = "%" if unit == "%" else ""
    xx = "x" if unit == "x" else ""

    def f(v: float) -> str:
        return f"{v:.3g}{pct}{xx}"

    if low is not None and high is not None:
        return f"{f(low)}-{f(high)}{u}"
    if low is not None:
        return f">= {f(low)}{u}"
    if high is not None:
        return f"<= {f(high)}{u}"
    return "-"


def rows(statements: list[dict[str, Any]]) -> list[list[str]]:
    """Cells of each row from the JSON form of the outcomes (Outcome.to_dict)."""
    out = []
    for d in statements:
        ours = format_value(d["ours"], d["unit"])
        if d.get("detail"):
            ours += f" ({d['detail']})"
        out.append([
            d["id"], d["figure"], d["role"], d["paper"], _allowed(d), ours, "yes" if d["agrees"] else "NO",
            "" if d["agrees"] else (d.get("cause") or ""),
        ])
    return out


def beyond_rows(points: list[dict[str, Any]]) -> list[list[str]]:
    """The points past the paper's scale (paper/beyond.py), one row per system and
    node count: the medians without and with network noise, and their ratio."""
    by: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for p in points:
        by.setdefault((p["system"], p["nodes"]), {})[p["variant"]] = p
    out = []
    for (system, nodes), v in by.items():
        none, net = v.get("none"), v.get("network")
        ratio = f"{net['median_ns'] / none['median_ns']:.2f}x" if none and net and none["median_ns"] else "-"
        out.append([system, f"{nodes:,}", _ms(none), _ms(net), ratio, str(net["reps"] if net else none["reps"]),
                    f"beyond the paper (it stops at {PAPER_LARGEST_RING:,})"])
    return out


def _ms(p: dict[str, Any] | None) -> str:
    return "-" if p is None else f"{p['median_ns'] / 1e6:.2f} ms"


def print_table(data: dict[str, Any]) -> None:
    from rich import box
    from cloudnoise.console import stdout_console
    from rich.table import Table

    con = stdout_console()
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False,
              title=f"De Sensi et al., SC22, Sec. V reproduced ({data['reps']} repetitions, seed {data['seed']})")
    for h in HEADERS:
        t.add_column(h, overflow="fold", no_wrap=h in ("figure", "role", "agrees"),
                     max_width=60 if h == "cause" else None)
    for r, d in zip(rows(data["statements"]), data["statements"]):
        style = None if d["agrees"] else "red"
        t.add_row(*r, style=style)
    con.print(t)
    if data.get("beyond"):
        b = Table(box=box.SIMPLE_HEAD, pad_edge=False,
                  title="Fig. 15's 512 MiB ring past the paper's scale (cloudnoise paper --beyond)")
        for h in BEYOND_HEADERS:
            b.add_column(h)
        for r in beyond_rows(data["beyond"]["points"]):
            b.add_row(*r)
        con.print(b)
    s = data["summary"]
    for role in ("calibration", "held-out"):
        n = s[role]
        pct = 100.0 * n["agree"] / n["total"] if n["total"] else 0.0
        con.print(f"{role}: {n['agree']} of {n['total']} statements agree ({pct:.0f}%)")
    con.print(f"{data['reps_simulated']} repetitions simulated in {data['seconds']:.0f} s; sweeps kept in {data['out']}")


def to_csv(data: dict[str, Any]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(HEADERS + ("quote", "where", "reading"))
    for r, d in zip(rows(data["statements"]), data["statements"]):
        w.writerow(r + [d["quote"], d["where"], d["reading"]])
    return buf.getvalue()
