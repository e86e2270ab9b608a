"""How busy the launching machine was when an experiment started and ended.

A campaign measured while other work ran beside it carries that work into
its profile as noise (a profile measured while the test suite ran beside it
mispredicted the same machine, quiet, by a median 427 %). The measure stage
records, at each experiment's start and end, on the host that launches it:

* the 1-minute load average and the cores;
* over a short window (WINDOW_S), the share of CPU time the hypervisor stole
  and the share that was busy, from /proc/stat;
* the busiest other processes over the same window (not cloudnoise's own
  process tree), from /proc/PID/stat.

`model build` reads the records back (`load_records`) and flags a campaign
measured under load (`busy_flags`). Where /proc is not there (not Linux) a
record holds the load average alone.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

WINDOW_S = 0.2
TOP_PROCESSES = 3
BUSY_PROCESS_SHARE = 0.2  # of one core over the window: a process listed as busy


def _cpu_times() -> list[int] | None:
    try:
        first = Path("/proc/stat").read_text().splitlines()[0].split()
    except OSError:
        return None
    return [int(x) for x in first[1:]] if first and first[0] == "cpu" else None


def _process_ticks() -> dict[int, tuple[str, int, int]]:
    """pid -> (name, CPU ticks, parent pid) of every process /proc shows."""
    out: dict[int, tuple[str, int, int]] = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "stat").read_text()
        except OSError:
            continue
        name = raw[raw.find("(") + 1:raw.rfind(")")]
        rest = raw[raw.rfind(")") + 2:].split()
        try:
            out[int(entry.name)] = (name, int(rest[11]) + int(rest[12]), int(rest[1]))
        except (IndexError, ValueError):
            continue
    return out


def _own_tree(procs: dict[int, tuple[str, int, int]]) -> set[int]:
    """This process, its ancestors and its descendants: not 'other' load."""
    me = os.getpid()
    mine = {me}
    pid = me
    while pid in procs and procs[pid][2] not in (0, pid):
        pid = procs[pid][2]
        mine.add(pid)
    grew = True
    while grew:
        grew = False
        for p, (_, _, parent) in procs.items():
            if parent in mine and p not in mine:
                mine.add(p)
                grew = True
    return mine


def snapshot(when: str) -> dict[str, Any]:
    """The machine's load now (`when`: "start" or "end"), as one JSON-ready record."""
    from cloudnoise.measurement.campaign import utc_now

    record: dict[str, Any] = {"when": when, "at": utc_now(), "cores": os.cpu_count() or 1}
    try:
        record["load_average"] = round(os.getloadavg()[0], 2)
    except OSError:
        record["load_average"] = None
    before, procs_before = _cpu_times(), _process_ticks()
    if before is None:
        return record
    time.sleep(WINDOW_S)
    after, procs_after = _cpu_times(), _process_ticks()
    if after is None:
        return record
    delta = [b - a for a, b in zip(before, after)]
    total = sum(delta) or 1
    idle = delta[3] + (delta[4] if len(delta) > 4 else 0)
    record["busy_share"] = round(1.0 - idle / total, 4)
    record["steal_share"] = round(delta[7] / total, 4) if len(delta) > 7 else None
    hz = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
    mine = _own_tree(procs_after)
    busy = []
    for pid, (name, ticks, _) in procs_after.items():
        if pid in mine or pid not in procs_before:
            continue
        share = (ticks - procs_before[pid][1]) / hz / WINDOW_S
        if share >= BUSY_PROCESS_SHARE:
            busy.append({"pid": pid, "name": name, "cores": round(share, 2)})
    record["busy_processes"] = sorted(busy, key=lambda b: -b["cores"])[:TOP_PROCESSES]
    return record


def load_records(meta: dict[str, Any]) -> list[dict[str, Any]]:
    """Every experiment's load records from a campaign's metadata, each with its experiment."""
    out = []
    for name, exp in (meta.get("experiments") or {}).items():
        for record in (exp.get("load") or []) if isinstance(exp, dict) else []:
            if isinstance(record, dict):
                out.append({"experiment": name, **record})
    return out


def busy_flags(records: list[dict[str, Any]], steal_share: float) -> list[str]:
    """One line per experiment whose start or end found the machine busy: a load average above
    its cores, steal above `steal_share`, or other processes busy."""
    flags = []
    for r in records:
        why = []
        load, cores = r.get("load_average"), r.get("cores") or 1
        if isinstance(load, (int, float)) and load > cores:
            why.append(f"load average {load:g} on {cores} cores")
        steal = r.get("steal_share")
        if isinstance(steal, (int, float)) and steal > steal_share:
            why.append(f"{100 * steal:.3g}% of the CPU stolen")
        others = r.get("busy_processes") or []
        if others:
            why.append("busy: " + ", ".join(f"{p.get('name')} ({p.get('cores')} cores)" for p in others))
        if why:
            flags.append(f"measured under load ({r.get('experiment')} {r.get('when')}: {'; '.join(why)}): the load is "
                         "in this profile's noise; measure on a quiet machine")
    return flags
