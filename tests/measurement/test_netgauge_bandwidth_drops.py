"""`model build` on an imported Netgauge run whose 16 MiB series drops in time
(model/bandwidth_split.py): the profile carries the drops as bandwidth episodes
and says why; the per-message remainder leaves them out; the paper's
per-message semantics on request; a series too short for the time model falls
back with one line in the profile's provenance; and the profile simulates."""

from __future__ import annotations

import json

from cloudnoise.measurement.imports.netgauge import import_netgauge
from netgauge_synthetic import pingpong_text, write_run


def half_us(r: int, i: int) -> float:
    # 16 MiB at 1.6 ms (RTT/2, as Netgauge writes it) with 1 % of independent jitter; in every third
    # call of 1000, samples 300-599 move at 0.7 of that bandwidth (1.37 s)
    jitter = ((r * 7919 + i * 104729) % 97) / 97.0 * 16.0
    slow = r % 3 == 1 and 300 <= i < 600
    return (1600.0 + jitter) / (0.7 if slow else 1.0)


def test_model_build_carries_the_drops_and_says_why(tmp_path, run_cli):
    run = write_run(tmp_path / "2022_07_08_21_16_56")
    (run / "ng_netnoise_mpi_bw.out").write_text(pingpong_text([16777216], 12, half_us))
    camp = import_netgauge(run, tmp_path / "camp", {"system": "synthetic"}).campaign
    built = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"), "--json")
    assert built.returncode == 0, built.stderr
    split = json.loads(built.stdout)["bandwidth_split"]
    assert split["kind"] == "episodes" and split["used"] and split["found"] == 4 and split["with_calls"] == 0
    profile = json.loads((tmp_path / "p.json").read_text())
    bw = profile["bandwidth_noise"]
    assert bw["episodes"] == split["episodes"] and "drops in time" in bw["note"]
    assert "two parts: drops in time" in bw["provenance"]["source"]
    # the per-message remainder leaves the drops out: its slowest draw is near the body
    assert min(bw["quantiles"]["v"]) > 0.9
    from cloudnoise.model.profile import load_profile

    episodes = load_profile(tmp_path / "p.json").bandwidth_episodes()
    # per host: the 0.7 seen in a round trip is one host's drop to 1 / (2 / 0.7 - 1 / 0.99) = 0.54
    assert 0.5 < episodes.fraction.mean() < 0.58
    # each drop: 300 round trips of 2 x 1.6 ms / 0.7 = 1.37 s
    assert 1.3e9 < episodes.duration.mean() < 1.45e9
    # the profile simulates (the episodes reach the engine)
    sim = run_cli("simulate", "--profile", str(tmp_path / "p.json"), "--pattern", "allreduce_ring", "--ranks", "8",
                  "--size", "1MiB", "--reps", "3")
    assert sim.returncode == 0, sim.stderr
    # the paper's semantics on request: every sample a per-message draw, the drops said and left out
    iid = run_cli("model", "build", str(camp), "-o", str(tmp_path / "iid.json"), "--bandwidth-model", "iid")
    assert iid.returncode == 0, iid.stderr
    plain = json.loads((tmp_path / "iid.json").read_text())["bandwidth_noise"]
    assert "episodes" not in plain and min(plain["quantiles"]["v"]) < 0.75
    assert "--bandwidth-model iid" in plain["provenance"]["source"]


def test_a_series_too_short_says_so_in_one_line(tmp_path, run_cli):
    run = write_run(tmp_path / "2022_07_08_21_16_56")  # two calls of 16 MiB ping-pongs
    camp = import_netgauge(run, tmp_path / "camp", {"system": "synthetic"}).campaign
    out = run_cli("model", "build", str(camp), "-o", str(tmp_path / "short.json"))
    assert out.returncode == 0, out.stderr
    assert "bandwidth noise: per-message draws: too short for a time model: 1958 samples" in out.stdout
    source = json.loads((tmp_path / "short.json").read_text())["bandwidth_noise"]["provenance"]["source"]
    assert "too short for a time model: 1958 samples" in source
