"""LogGP fitting and `cloudnoise model build` from a small real campaign."""

from __future__ import annotations

import json
import math

import pytest

from measure_support import mpi_or_skip, run, run_json


def test_loggp_fit_and_profile(tmp_path):
    mpi_or_skip()
    camp = tmp_path / "campaign"
    doc = run_json("measure", "loggp", "--sizes", "1,64,1K,4K,16K,64K,256K", "--iterations", "200",
                   "--out", str(camp), "--label", "system=ci", "--label", "distance=same-rack")
    fit = doc["loggp"]
    for key in ("L", "o", "g", "G", "O", "S"):
        assert math.isfinite(fit[key]) and fit[key] >= 0, key
    assert fit["o_s"] > 0 and fit["G"] > 0
    assert "r2_eager" in fit and "r2_rendezvous" in fit
    assert len(fit["per_size"]) == 7 and all("residual" in r for r in fit["per_size"])

    assert run("measure", "latency-noise", "--duration", "2", "--out", str(camp)).returncode == 0
    assert run("measure", "os-noise", "--duration", "1", "--out", str(camp)).returncode == 0
    out = tmp_path / "profiles" / "ci.json"
    proc = run("model", "build", str(camp), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    profile = json.loads(out.read_text())
    assert profile["format"] == "cloudnoise-profile/1" and profile["name"] == "ci"
    assert profile["loggops"]["provenance"]["kind"] == "measured"
    # L and the latency noise together reproduce the measured one-way times (at every
    # probability of the quantile table, within the streaming histogram's precision)
    import numpy as np
    import pyarrow.parquet as pq

    from cloudnoise.measure.summaries import RELATIVE_PRECISION

    half = np.sort(pq.read_table(camp / "latency-noise" / "samples.parquet",
                                 columns=["value_ns"]).column("value_ns").to_numpy()) / 2.0
    lg = profile["loggops"]
    table = profile["latency_noise"]["quantiles"]
    p, excess = np.array(table["p"]), np.array(table["v"])
    assert lg["o"] == fit["o"] and lg["L"] == max(0.0, half.min() - 2 * fit["o"])
    ranks = np.clip(np.floor(p * len(half) + 0.5).astype(int), 1, len(half)) - 1
    exact = np.maximum(half[ranks], 2 * lg["o"])
    exact[0] = max(half[0], 2 * lg["o"])
    simulated = 2 * lg["o"] + lg["L"] + excess
    assert np.all(simulated >= exact - 1e-6) and np.all(simulated <= exact * (1 + RELATIVE_PRECISION) + 1e-6)
    # G and the bandwidth noise together reproduce the fitted (median) G
    if "bandwidth_noise" in profile:
        fraction = profile["bandwidth_noise"]["quantiles"]
        median = float(np.interp(0.5, fraction["p"], fraction["v"]))
        assert lg["G"] == pytest.approx(fit["G"] * median, rel=2 * RELATIVE_PRECISION)
    else:
        assert lg["G"] == round(fit["G"], 6)
    assert (out.parent / profile["os_noise"]["trace"]).exists()
    assert profile["table2"]["same_rack"]["min_latency_us"] > 0
    assert "distance=same-rack" in profile["labels"]


def test_consistent_latency_known_answers():
    """2o + L + excess = T exactly when min T >= 2o; T below 2o comes out as 2o."""
    import numpy as np

    from cloudnoise.model.build import consistent_latency

    L, excess = consistent_latency(np.array([1000.0, 1100.0, 1500.0]), o_ns=300.0)
    assert L == 400.0 and excess.tolist() == [0.0, 100.0, 500.0]
    L, excess = consistent_latency(np.array([500.0, 650.0, 900.0]), o_ns=300.0)
    assert L == 0.0 and excess.tolist() == [0.0, 50.0, 300.0]


def test_consistent_gap_known_answer():
    """The median of G / fraction is the fitted G: G = fitted x median fraction."""
    import numpy as np

    from cloudnoise.model.build import consistent_gap

    fraction = np.array([1.0, 0.9, 0.8, 0.5, 0.95])
    G = consistent_gap(0.1, fraction)
    assert G == 0.09 and np.median(G / fraction) == pytest.approx(0.1, rel=1e-12)


def test_loggp_fit_known_answers():
    """Samples from an exact LogGOPS system give back its parameters, including
    O_rendezvous, the per-byte cost of posting a send above the eager limit."""
    import numpy as np

    from cloudnoise.measure.loggp import fit
    from cloudnoise.measure.samples import KIND_ISEND_CALL, KIND_RECV_CALL, KIND_RTT, KIND_SEND_CALL, KIND_TRAIN

    o_s, o_r, L, G, O, O_rdv, S = 200.0, 400.0, 1000.0, 0.1, 0.05, 0.002, 4096
    rows = []
    for s in (1, 1024, 2048, 4096, 65536, 1 << 20, 1 << 22):
        t = o_s + L + o_r + G * s  # one-way time
        rows += [(KIND_RTT, s, 2 * t, 0)] * 3
        send = o_s + O * s if s <= S else t  # a rendezvous MPI_Send lasts the transfer
        rows += [(KIND_SEND_CALL, s, send, 16), (KIND_TRAIN, s, 2 * t + 15 * 500.0, 16)]
        rows += [(KIND_RECV_CALL, s, o_r if s == 1 else o_r + O * s, 0)]
        rows += [(KIND_ISEND_CALL, s, send if s <= S else o_s + O_rdv * s, 0)]
    kind, size, value, param = (np.array(c) for c in zip(*rows))
    got = fit({"kind": kind, "size_bytes": size, "value_ns": value, "param": param})
    assert got["S"] == S
    # at 1 byte: the one-byte G and O terms are within 0.1 ns
    assert got["L"] == pytest.approx(L, abs=0.1) and got["o"] == pytest.approx((o_s + o_r) / 2, abs=0.1)
    assert got["G"] == pytest.approx(G) and got["O"] == pytest.approx(O)
    assert got["O_rendezvous"] == pytest.approx(O_rdv)
    # no isend samples (a campaign measured before the probe had them): no O_rendezvous
    keep = kind != KIND_ISEND_CALL
    old = fit({"kind": kind[keep], "size_bytes": size[keep], "value_ns": value[keep], "param": param[keep]})
    assert old["O_rendezvous"] is None and old["G"] == pytest.approx(G)


def test_model_build_needs_a_campaign(tmp_path):
    proc = run("model", "build", str(tmp_path), "-o", str(tmp_path / "p.json"))
    assert proc.returncode == 2
    assert "not a campaign" in proc.stderr and "Traceback" not in proc.stderr
