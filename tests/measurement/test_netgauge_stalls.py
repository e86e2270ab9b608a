"""`model build` on an imported Netgauge run whose latency series stalls in
time (model/latency_split.py): the profile carries the stalls and says why; the
paper's per-message semantics on request; a series too short for the time
model falls back with one line in the profile's provenance."""

from __future__ import annotations

import json

from cloudnoise.measurement.imports.netgauge import import_netgauge
from netgauge_synthetic import pingpong_text, write_run


def test_model_build_carries_the_stalls_and_says_why(tmp_path, run_cli):
    # an imported Netgauge run whose 1-byte ping-pongs stall in episodes: in every other call of
    # 1000, samples 200-599 hold a 45 us stall every fifth sample (RTT/2, as Netgauge writes it)
    def half_us(r: int, i: int) -> float:
        jitter = ((r * 7919 + i * 104729) % 97) / 970.0
        return 2.4 + jitter + (45.0 if r % 2 == 0 and 200 <= i < 600 and i % 5 == 0 else 0.0)

    run = write_run(tmp_path / "2022_05_06_16_58_37")
    (run / "ng_netnoise_mpi_lat.out").write_text(pingpong_text([1], 24, half_us))
    camp = import_netgauge(run, tmp_path / "camp", {"system": "synthetic"}).campaign
    built = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"), "--json", "--latency-model", "stalls")
    assert built.returncode == 0, built.stderr
    split = json.loads(built.stdout)["latency_split"]
    assert split["kind"] == "bursty" and split["used"] and split["lag"] == 5
    profile = json.loads((tmp_path / "p.json").read_text())
    lat = profile["latency_noise"]
    assert lat["stalls"] == split["stalls"] and "stalls in time" in lat["note"]
    assert "two parts: stalls in time" in lat["provenance"]["source"] and "lag 5" in lat["provenance"]["source"]
    # the per-message remainder leaves the stalls out: nothing near 45 us in it
    assert max(lat["quantiles"]["v"]) < 10_000
    # by default the stalls in time must also give the series back (model/stall_choice.py): these, a
    # stall every fifth sample in every other call, are not met by time as a stall in time would be
    # (and the flat bandwidth series, no round trip 2 % slow, refutes them); per-message draws give the
    # series back, and the profile draws them per message and says why
    auto = run_cli("model", "build", str(camp), "-o", str(tmp_path / "auto.json"))
    assert auto.returncode == 0, auto.stderr
    # the second build is said on stderr, with why and how long
    assert "model build: building the profile again, with its stalls as per-message draws: the stalls in time " \
           "miss the latency series' closure (about" in auto.stderr, auto.stderr
    assert "stall model: per-message draws" in auto.stdout
    stall_model = json.loads((tmp_path / "auto.json").read_text())["closure"]["stall_model"]
    assert stall_model.startswith("per-message draws") and "a profile must close first" in stall_model
    assert "also refutes stalls that hold every message" in stall_model
    # the paper's semantics on request: every sample a per-message draw, the stalls said and left out
    iid = run_cli("model", "build", str(camp), "-o", str(tmp_path / "iid.json"), "--latency-model", "iid")
    assert iid.returncode == 0, iid.stderr
    plain = json.loads((tmp_path / "iid.json").read_text())["latency_noise"]
    assert "stalls" not in plain and max(plain["quantiles"]["v"]) > 40_000
    assert "--latency-model iid" in plain["provenance"]["source"]
    # a series too short for the time model: the profile says so and draws per message
    short = write_run(tmp_path / "2022_05_06_17_00_00")
    camp2 = import_netgauge(short, tmp_path / "camp2", {"system": "synthetic"}).campaign
    out = run_cli("model", "build", str(camp2), "-o", str(tmp_path / "short.json"))
    assert out.returncode == 0, out.stderr
    assert "latency noise: per-message draws: too short for a time model" in out.stdout
    source = json.loads((tmp_path / "short.json").read_text())["latency_noise"]["provenance"]["source"]
    assert "too short for a time model: 2937 samples" in source


def test_check_on_an_imported_campaign_predicts_collectives(tmp_path, run_cli):
    # measured elsewhere: --check prints what the profile's noise does to small collectives
    run = write_run(tmp_path / "2022_05_06_16_58_37")
    camp = import_netgauge(run, tmp_path / "camp", {"system": "synthetic"}).campaign
    # the synthetic series is a ramp within each call (sample i of call r: 2 + r + i/1000 us): its
    # sums of consecutive scores persist (a state of weight > 0.9 fits them), but its values stand
    # in sorted order within every call, which reads as no order at all (model/series_order.py):
    # no sums of consecutive round trips to judge a state by, so none is written
    built = run_cli("model", "build", str(camp), "-o", str(tmp_path / "s.json"), "--json")
    assert built.returncode == 0, built.stderr
    state = json.loads(built.stdout)["latency_state"]
    assert not state["used"] and "no order" in state["why"] and "a state of weight 0.9" in state["why"], state["why"]
    # per-message draws alone: the noise varies around the noiseless run, message by message
    out = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"), "--latency-model", "iid",
                  "--check", "--check-reps", "3", "--json")
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["predicted"]
    assert {(r["pattern"], r["size_bytes"]) for r in rows} >= {("nwaydissemination", 16), ("pipelinedring", 16)}
    # the noiseless medians are LogGOPS's at the series' median round trip (model/latency_level.py);
    # the noise varies around it, so a collective's median moves by what its slowest paths add,
    # and by a few per cent at most below the noiseless one (3 repetitions)
    assert all(r["none_median_us"] > 0 and r["ratio"] >= 0.9 for r in rows)
    assert max(r["ratio"] for r in rows) > 1.1
    # the pipelined ring has no 16 B run on 32 nodes (0 B segments)
    assert ("pipelinedring", 16, 32) not in {(r["pattern"], r["size_bytes"], r["nodes"]) for r in rows}
    text = run_cli("model", "build", str(camp), "-o", str(tmp_path / "p.json"), "--check", "--check-reps", "3")
    assert "predicted collective medians" in text.stdout
