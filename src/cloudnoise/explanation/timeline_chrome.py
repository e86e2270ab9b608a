"""Timelines in the Chrome Trace Event format, which Perfetto (ui.perfetto.dev) and chrome://tracing open.

The JSON object form: `traceEvents`, `displayTimeUnit` and `otherData` (what ran).
Each rank of each repetition is a process, named `rep R rank N`, with a thread per
CPU, per NIC's sending side and per NIC's receiving side; one more process per
repetition holds its critical path, a stretch after another from 0 to the runtime.

- An operation is a complete event (`ph: X`) on the thread that ran it: a send's CPU
  part (o, O and OS detours) on its CPU, its gap (g, G x bytes and the bandwidth noise)
  on its NIC's sending side; a message taken, at its receiver, on the CPU and the NIC's
  receiving side; a calc on its CPU. `args` holds its LogGOPS parts and noise in ns
  (those that are not zero), the op, its peer and size, and `critical` when it lies on
  the path (those also get `cname: "terrible"`, red in chrome://tracing).
- A message's way from its send to its receiver (o, L and the latency noise) is an
  async event (`ph: b/e`, category `flight`) of the sender, and a flow (`ph: s/f`) joins
  the send's CPU event to the receiving CPU event.
- OS detours and latency stalls are events of their own, inside the event they
  lengthened: the detours' time at the end of the CPU event they stopped, a stall at
  the start of the flight that waited for it.

Times are microseconds (`ts`, `dur`) with six decimals: picoseconds, exactly.
"""

from __future__ import annotations

import json
import os
from typing import Any

import numpy as np

from cloudnoise.explanation.timeline import Timeline
from cloudnoise.output_files import write_text
from cloudnoise.simulation.critical_path import KINDS, LINKS, PARTS

_OS = PARTS.index("os_detour")
_STALL = PARTS.index("latency_stall")
_NIC_SEND, _NIC_RECV = 1000, 2000  # thread ids: CPU c is c + 1, NIC n's sides 1000 + n and 2000 + n
_PATH_TID = 1


def _us(ps: int | np.integer) -> float:
    return round(int(ps) / 1e6, 6)


def _parts_ns(parts: np.ndarray) -> dict[str, float]:
    return {PARTS[k]: int(v) / 1000 for k, v in enumerate(parts) if v}


def _label(kind: int, link: int, bytes_: int, peer: int) -> str:
    what = KINDS.get(kind, "op")
    if what == "calc":
        return f"calc {int(bytes_) / 1000:g} ns"
    if what == "send":
        return {"cpu": f"send {bytes_} B to {peer}", "nic_send": f"gap after send to {peer}",
                "flight": f"to {peer}: {bytes_} B"}.get(LINKS[link], "send")
    if what == "message":
        return {"cpu": f"recv {bytes_} B from {peer}", "nic_recv": f"gap after recv from {peer}"}.get(LINKS[link], "recv")
    return f"{what} ({LINKS[link]})"


def chrome_events(timelines: list[Timeline], ranks: int) -> list[dict[str, Any]]:
    """The trace events of the timelines (one set of processes per repetition)."""
    events: list[dict[str, Any]] = []
    for k, tl in enumerate(timelines):
        base = k * (ranks + 1)  # this repetition's pids: base + rank, and base + ranks for its path
        a = tl.activities
        critical = tl.on_path()
        threads: set[tuple[int, int, str]] = set()
        for rank in tl.ranks:
            events.append({"name": "process_name", "ph": "M", "pid": base + int(rank),
                           "args": {"name": f"rep {tl.repetition} rank {int(rank)}"}})
            events.append({"name": "process_sort_index", "ph": "M", "pid": base + int(rank),
                           "args": {"sort_index": base + int(rank)}})
        for i in range(len(a)):
            kind, link, host = int(a["kind"][i]), int(a["link"][i]), int(a["host"][i])
            start, end = int(a["start_ps"][i]), int(a["end_ps"][i])
            parts = a["parts"][i]
            op, peer, size = int(a["op"][i]), int(a["peer"][i]), int(a["bytes"][i])
            args: dict[str, Any] = {"op": op, **_parts_ns(parts)}
            if kind != 3:
                args.update(peer=peer, bytes=size)
            if critical[i]:
                args["critical"] = True
            name = _label(kind, link, size, peer)
            pid = base + host
            flow_id = f"{tl.repetition}:{op}"
            if LINKS[link] == "flight":
                tid = _NIC_SEND + int(a["nic"][i])
                async_ = {"cat": "flight", "id": flow_id, "pid": pid, "tid": tid}
                events.append({"name": name, "ph": "b", "ts": _us(start), "args": args, **async_})
                stall = int(parts[_STALL])
                if stall > 0:
                    o_end = start + int(parts[PARTS.index("o")])
                    events.append({"name": "latency stall", "ph": "b", "ts": _us(o_end), **async_})
                    events.append({"name": "latency stall", "ph": "e", "ts": _us(o_end + stall), **async_})
                events.append({"name": name, "ph": "e", "ts": _us(end), **async_})
                continue
            if LINKS[link] == "cpu":
                tid, thread = int(a["cpu"][i]) + 1, f"CPU {int(a['cpu'][i])}"
            elif LINKS[link] == "nic_send":
                tid, thread = _NIC_SEND + int(a["nic"][i]), f"NIC {int(a['nic'][i])} send"
            else:
                tid, thread = _NIC_RECV + int(a["nic"][i]), f"NIC {int(a['nic'][i])} receive"
            threads.add((pid, tid, thread))
            dur = max(0, end - start)  # a 0-byte message's G term is negative, as in LogGOPSim
            event = {"name": name, "cat": KINDS.get(kind, "op"), "ph": "X", "ts": _us(start), "dur": _us(dur),
                     "pid": pid, "tid": tid, "args": args}
            if critical[i]:
                event["cname"] = "terrible"
            events.append(event)
            detour = int(parts[_OS])
            if detour > 0 and dur >= detour:
                events.append({"name": "OS detour", "cat": "os", "ph": "X", "ts": _us(start + dur - detour),
                               "dur": _us(detour), "pid": pid, "tid": tid, "args": {"os_detour": detour / 1000}})
            if LINKS[link] == "cpu" and kind == 1:
                events.append({"name": "message", "cat": "message", "ph": "s", "id": flow_id, "ts": _us(start),
                               "pid": pid, "tid": tid})
            elif LINKS[link] == "cpu" and kind == 4:
                events.append({"name": "message", "cat": "message", "ph": "f", "bp": "e", "id": flow_id,
                               "ts": _us(start), "pid": pid, "tid": tid})
        for pid, tid, thread in sorted(threads):
            events.append({"name": "thread_name", "ph": "M", "pid": pid, "tid": tid, "args": {"name": thread}})
        # The critical path: every stretch, one after another.
        path_pid = base + ranks
        events.append({"name": "process_name", "ph": "M", "pid": path_pid,
                       "args": {"name": f"rep {tl.repetition} critical path"}})
        events.append({"name": "process_sort_index", "ph": "M", "pid": path_pid, "args": {"sort_index": base - 1}})
        events.append({"name": "thread_name", "ph": "M", "pid": path_pid, "tid": _PATH_TID,
                       "args": {"name": "critical path"}})
        p = tl.path
        for i in range(len(p)):
            start, end = int(p["start_ps"][i]), int(p["end_ps"][i])
            if end < tl.start_ps or start > tl.end_ps:
                continue
            kind, link = int(p["kind"][i]), int(p["link"][i])
            events.append({
                "name": f"rank {int(p['host'][i])}: {_label(kind, link, int(p['bytes'][i]), int(p['peer'][i]))}",
                "cat": "critical", "ph": "X", "ts": _us(start), "dur": _us(end - start), "pid": path_pid,
                "tid": _PATH_TID, "cname": "terrible",
                "args": {"op": int(p["op"][i]), "link": LINKS[link], "dependency": bool(p["dependency"][i]),
                         **_parts_ns(p["parts"][i])},
            })
    return events


def write_chrome_trace(path: str | os.PathLike[str], timelines: list[Timeline], ranks: int,
                       about: dict[str, Any] | None = None) -> int:
    """Writes the timelines to `path` (written whole, then renamed); returns its size in bytes."""
    data = {
        "traceEvents": chrome_events(timelines, ranks),
        "displayTimeUnit": "ns",
        "otherData": {
            **(about or {}),
            "repetitions": [{"variant": t.variant, "repetition": t.repetition, "runtime_ns": t.runtime_ps / 1000,
                             "window_ns": [t.start_ps / 1000, t.end_ps / 1000]} for t in timelines],
        },
    }
    text = json.dumps(data, separators=(",", ":"))
    write_text(path, text)
    return len(text.encode())
