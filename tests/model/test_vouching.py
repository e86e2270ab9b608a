"""What a campaign can vouch for (model/vouching.py, measurement/machine_load.py): time in stalls,
pairs of hosts, load, and the flags `model build` raises about them."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.measurement.machine_load import busy_flags, load_records, snapshot
from cloudnoise.model.round_trips import RoundTrips
from cloudnoise.model.vouching import stall_time_share, vouch


def test_time_in_stalls_is_their_excess_over_the_time_the_series_spans():
    # 1,000 round trips of 4 us and 10 of 404 us: 10 x 400 us of 8.04 ms in stalls
    trips = RoundTrips(np.array([4_000, 404_000]), np.array([1_000, 10]), observed_ns=8_040_000.0)
    assert stall_time_share(trips, 10_000.0) == pytest.approx(4_000_000 / 8_040_000)
    assert stall_time_share(trips, 500_000.0) == 0.0


def test_a_short_run_on_one_pair_that_stalls_is_that_pairs_and_without_os_noise_it_would_count_twice(tmp_path):
    from cloudnoise.model.latency_split import LatencySplit

    trips = RoundTrips(np.array([4_000, 404_000]), np.array([1_000, 10]), observed_ns=8_040_000.0)
    split = LatencySplit("bursty", "", 1_010, 10_000.0, 10 / 1_010, 1.0)
    meta = {"experiments": {"latency-noise": {"pairs": [{"run": 0, "hosts": ["n1", "n2"]}],
                                               "load": [{"when": "start", "load_average": 9.5, "cores": 2}]}}}
    part = vouch(tmp_path, meta, "campaign c", trips, split, None, {"os_noise": None}, [])
    assert part["pairs"] == [["n1", "n2"]] and part["round_trips"] == 1_010
    assert part["duration_s"] == pytest.approx(0.00804)
    flags = " | ".join(part["flags"])
    assert "on the pair n1-n2: that pair's and that moment's" in flags
    assert "no OS-noise run" in flags and "count it twice" in flags
    assert "measured under load (latency-noise start: load average 9.5 on 2 cores)" in flags
    assert part["load"][0]["experiment"] == "latency-noise"


def test_pairs_measured_in_turn_tell_one_pairs_stalls_from_the_systems(tmp_path):
    rows = [{"hosts": ["a", "b"], "round_trips": 500, "duration_s": 2.0, "stall_time_share": 0.2},
            {"hosts": ["c", "d"], "round_trips": 500, "duration_s": 2.0, "stall_time_share": 0.0}]
    part = vouch(tmp_path, {}, "c", None, None, None, {"os_noise": {"trace": "t"}}, [], rows)
    assert part["pairs"] == [["a", "b"], ["c", "d"]] and len(part["per_pair"]) == 2
    assert any("stalls on a-b (20% of its time), not on the other 1 pair(s)" in f for f in part["flags"])


def test_load_at_an_experiments_start_and_end():
    record = snapshot("start")
    assert record["when"] == "start" and record["cores"] >= 1 and "at" in record
    if record.get("busy_share") is not None:  # Linux: /proc read over a short window
        assert 0.0 <= record["busy_share"] <= 1.0 and isinstance(record["busy_processes"], list)
    meta = {"experiments": {"loggp": {"load": [record]}}}
    assert load_records(meta)[0]["experiment"] == "loggp"
    quiet = {"experiment": "x", "when": "end", "load_average": 0.5, "cores": 4, "steal_share": 0.0,
             "busy_processes": []}
    stolen = {**quiet, "steal_share": 0.1}
    busy = {**quiet, "busy_processes": [{"pid": 7, "name": "pytest", "cores": 1.0}]}
    assert busy_flags([quiet], 0.02) == []
    assert "10% of the CPU stolen" in busy_flags([stolen], 0.02)[0]
    assert "busy: pytest (1.0 cores)" in busy_flags([busy], 0.02)[0]
