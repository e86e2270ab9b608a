"""The timeline in the Chrome Trace Event format: a schema test (required fields, flow
pairs, async pairs, nesting per thread) on a 64-rank dissemination with OS and network
noise, the critical path process tiling the run, and what the ranks and window bound."""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.timeline import parse_ranks, parse_window, record, request
from cloudnoise.explanation.timeline_chrome import chrome_events, write_chrome_trace
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.setup import load_system, resolve_noise, resolve_params

PHASES = {"X", "M", "s", "f", "b", "e"}


@pytest.fixture(scope="module")
def case():
    system = load_system("azure-hpc")
    sched = generate(CollectiveSpec("dissemination", 64, 16))
    return sched, resolve_params(system, {}), resolve_noise(system, 0)


def check_schema(events: list[dict]) -> None:
    """What Perfetto and chrome://tracing need of each event, and of events together."""
    for e in events:
        assert e["ph"] in PHASES and isinstance(e["name"], str) and isinstance(e["pid"], int), e
        if e["ph"] == "M":
            assert e["name"] in ("process_name", "process_sort_index", "thread_name") and "args" in e
            if e["name"] == "thread_name":
                assert isinstance(e["tid"], int)
            continue
        assert isinstance(e["ts"], float | int) and e["ts"] >= 0, e
        if e["ph"] in ("X", "s", "f"):
            assert isinstance(e["tid"], int), e
        if e["ph"] == "X":
            assert e["dur"] >= 0, e
        if e["ph"] in ("s", "f", "b", "e"):
            assert "id" in e and "cat" in e, e
    slices = defaultdict(list)
    for e in events:
        if e["ph"] == "X":
            slices[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
    # Nesting per thread: a slice lies inside the one open before it, or after it.
    for thread, spans in slices.items():
        open_: list[float] = []
        for start, end in sorted(spans, key=lambda s: (s[0], -s[1])):
            while open_ and open_[-1] <= start + 1e-9:
                open_.pop()
            assert not open_ or end <= open_[-1] + 1e-9, (thread, start, end, open_[-1])
            open_.append(end)

    def enclosing(e: dict) -> bool:
        return any(s <= e["ts"] + 1e-9 and e["ts"] <= t + 1e-9 for s, t in slices[(e["pid"], e["tid"])])

    flows = defaultdict(list)
    for e in events:
        if e["ph"] in ("s", "f"):
            flows[e["id"]].append(e)
            assert enclosing(e), e  # a flow binds to the slice around it
    for flow_id, ends in flows.items():
        assert sorted(x["ph"] for x in ends) == ["f", "s"], flow_id
        s, f = sorted(ends, key=lambda x: x["ph"] == "f")
        assert f["ts"] >= s["ts"] and f.get("bp") == "e"
    pairs = defaultdict(list)
    for e in events:
        if e["ph"] in ("b", "e"):
            pairs[(e["cat"], e["id"], e["name"])].append(e)
    for key, ends in pairs.items():
        assert sorted(x["ph"] for x in ends) == ["b", "e"], key
        b, e_ = sorted(ends, key=lambda x: x["ph"] == "e")
        assert e_["ts"] >= b["ts"]


def test_a_64_rank_dissemination_with_both_noises_is_a_valid_trace(case, tmp_path):
    sched, params, noise = case
    wanted = request("median", "all", None, 64, 1)
    tl = record(sched, params, noise, "both", 0, 3, wanted)
    path = tmp_path / "t.json"
    size = write_chrome_trace(path, [tl], 64, {"source": "test"})
    data = json.loads(path.read_text())
    assert path.stat().st_size == size and data["displayTimeUnit"] == "ns"
    assert data["otherData"]["repetitions"][0]["repetition"] == 3
    events = data["traceEvents"]
    check_schema(events)
    names = {e["args"]["name"] for e in events if e["name"] == "process_name"}
    assert {"rep 3 rank 0", "rep 3 rank 63", "rep 3 critical path"} <= names
    threads = {e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert {"CPU 0", "NIC 0 send", "NIC 0 receive", "critical path"} <= threads
    # every message is a flow from its send to its receive: 64 ranks x 6 rounds
    assert sum(e["ph"] == "s" for e in events) == 64 * 6
    # The critical path tiles the run, and the activities on it are marked.
    path_events = sorted((e for e in events if e.get("cat") == "critical"), key=lambda e: e["ts"])
    assert path_events[0]["ts"] == 0
    assert path_events[-1]["ts"] + path_events[-1]["dur"] == pytest.approx(tl.runtime_ps / 1e6, abs=1e-6)
    for a, b in zip(path_events, path_events[1:]):
        assert a["ts"] + a["dur"] == pytest.approx(b["ts"], abs=1e-6)
    marked = sum(1 for e in events if e["ph"] in ("X", "b") and e.get("args", {}).get("critical"))
    assert marked == len(tl.path)
    # LogGOPS parts in args add up to each slice
    for e in events:
        if e["ph"] == "X" and e["cat"] in ("send", "message", "calc"):
            parts = sum(v for k, v in e["args"].items() if k not in ("op", "peer", "bytes", "critical"))
            assert parts == pytest.approx(e["dur"] * 1000, abs=1e-3)


def test_os_detours_and_stalls_are_events_of_their_own():
    import numpy as np_

    from cloudnoise import _engine
    from cloudnoise.simulation.noise import NoiseSetup
    from cloudnoise.simulation.params import LogGOPS
    from cloudnoise.model.latency_episodes import StallTable  # noqa: F401  (the stall table's home)
    from cloudnoise.model.os_noise import OSNoiseTrace

    sched = generate(CollectiveSpec("dissemination", 8, 16))
    params = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.006", O="0", S="65535")
    # a 2 us detour every 5 us, every rank from offset 0: every o of 1.5 us that crosses one
    noise = NoiseSetup(os_trace=OSNoiseTrace(np_.arange(0, 10**6, 5000), np_.full(200, 2000)), os_phase_ns=0)
    tl = record(sched, params, noise, "both", 0, 0, request("0", "all", None, 8, 1))
    events = chrome_events([tl], 8)
    check_schema(events)
    detours = [e for e in events if e["name"] == "OS detour"]
    assert detours and all(e["args"]["os_detour"] > 0 for e in detours)
    assert _engine is not None


def test_ranks_and_window_bound_what_is_written(case):
    sched, params, noise = case
    tl = record(sched, params, noise, "both", 0, 0, request("0", "0-3,60", "2us:5us", 64, 1))
    hosts = set(tl.activities["host"].tolist())
    assert hosts <= {0, 1, 2, 3, 60}
    assert (tl.activities["end_ps"] >= 2_000_000).all() and (tl.activities["start_ps"] <= 5_000_000).all()
    assert len(tl.path) > 0  # the whole path is kept; the writer shows what overlaps the window


@pytest.mark.parametrize(("text", "message"), [
    ("64", "rank 64 does not exist"), ("3-1", "not a range"), ("a-b", "not a rank"), ("0,,2", "empty item"),
])
def test_bad_ranks_are_refused(text, message):
    with pytest.raises(CloudnoiseError, match=message):
        parse_ranks(text, 64)


def test_windows_and_repetitions_are_checked():
    assert parse_window("10us:") == (10_000_000, None) and parse_window(None) == (0, None)
    with pytest.raises(CloudnoiseError, match="ends before"):
        parse_window("5us:2us")
    with pytest.raises(CloudnoiseError, match="START:END"):
        parse_window("5us")
    with pytest.raises(CloudnoiseError, match="was not run"):
        request("12", "0", None, 4, 10)
    assert request("median,p99,9", "all", None, 4, 10).reps == ("median", "p99", "9")
    assert parse_ranks("all", 3).tolist() == [1, 1, 1] and np.array_equal(parse_ranks("1", 3), [0, 1, 0])
