"""The LogGP(S) estimator (measurement/loggp.py) on synthetic samples from known
parameters, and its closed-form predictions against the engine."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise import _engine, simulate
from cloudnoise.measurement import loggp
from cloudnoise.measurement.loggp import Estimate, SizeClass, predict
from cloudnoise.simulation.params import LogGOPS

from loggp_synthetic import SIZES, TRUTH, samples


def _close(got: float, want: float, rel: float = 0.02) -> bool:
    return abs(got - want) <= rel * abs(want)


def _check_recovered(fit: dict, truth: Estimate) -> None:
    one_way_1 = truth.o_s + truth.L + truth.o_r
    assert _close(fit["o_s"], truth.o_s) and _close(fit["o_r"], truth.o_r) and _close(fit["g"], truth.g)
    # L is a small difference of larger times: within 2 % of the one-way time it is part of
    assert abs(fit["L"] - truth.L) <= 0.02 * one_way_1
    assert fit["S"] == truth.S
    got = fit["size_classes"]
    assert [c["min_bytes"] for c in got] == [c.min_bytes for c in truth.classes]
    for g, t in zip(got, truth.classes):
        assert _close(g["G"], t.G) and _close(g["O"], t.O), (g, t)
        # a class's latency within 2 % of the one-way time at its smallest size
        first = max(1, t.min_bytes)
        assert abs(g["L"] - t.L) <= 0.02 * (truth.o_s + t.L + truth.o_r + (first - 1) * max(t.G, t.O)), (g, t)


def test_parameters_are_recovered_from_synthetic_samples():
    fit = loggp.fit(samples(), train=8)
    _check_recovered(fit, TRUTH)
    # separate send and receive overheads (180 vs 320 ns) predict the send calls and trains better
    assert fit["overhead_model"]["split_predicts_better"] and fit["overhead_model"]["chosen"] == "o_s/o_r"
    assert fit["rounds_used"] == [0, 1, 2, 3, 4] and fit["worst"] is None
    spread = fit["spread"]
    assert spread["o_s"]["rounds"] == 5 and 0 <= spread["o_s"]["iqr"] < 0.02 * TRUTH.o_s
    row = {r["size_bytes"]: r for r in fit["per_size"]}[1 << 20]
    assert abs(row["pingpong_residual"]) < 0.02 and row["class"] == 1 and not row["eager"]


def test_late_receives_that_cost_more_are_reported_not_fitted():
    """A transport whose unexpected-message path costs 600 ns more: o_r is
    still the early receive's, and the fit says it cannot reproduce the late
    receives, naming them."""
    fit = loggp.fit(samples(late_extra_ns=600.0, seed=2), train=8)
    _check_recovered(fit, TRUTH)
    assert fit["late_receive_extra_ns"]["median"] == pytest.approx(600.0, rel=0.05)
    assert _close(fit["o_r_late"], TRUTH.o_r + 600.0)
    assert fit["worst"]["operation"] == "recv_late"
    assert any("cannot reproduce" in n and "recv_late" in n for n in fit["notes"])


def test_a_disturbed_round_is_set_aside():
    fit = loggp.fit(samples(disturbed_round=3, seed=3), train=8)
    assert fit["rounds_used"] == [0, 1, 2, 4]
    assert any("rounds 3 set aside" in n for n in fit["notes"])
    _check_recovered(fit, TRUTH)


def test_a_round_with_the_cores_placed_differently_is_set_aside():
    """The host moved the vCPUs for round 2: its core-to-core probes read 4x
    the others' and its eager operations run 15 % slower, too little for the
    disturbed-round test. The fit keeps the other rounds, says why, and
    describes the state it kept."""
    fit = loggp.fit(samples(core_ns=60.0, moved_round=2, seed=4), train=8)
    assert fit["rounds_used"] == [0, 1, 3, 4]
    assert any("rounds 2 set aside: the cores were placed differently" in n for n in fit["notes"])
    core = fit["core_latency_ns"]
    assert core["rounds_other_state"] == [2]
    assert core["used"] == pytest.approx(60.0, rel=0.05)
    assert core["max"] == pytest.approx(240.0, rel=0.15) and core["probes"] == 5 * len(SIZES)
    _check_recovered(fit, TRUTH)


def test_one_machine_state_sets_nothing_aside():
    fit = loggp.fit(samples(core_ns=60.0, seed=5), train=8)
    assert fit["rounds_used"] == [0, 1, 2, 3, 4] and fit["core_latency_ns"]["rounds_other_state"] == []
    assert not any("placed differently" in n for n in fit["notes"])
    # without probes (an older campaign) the fit says nothing of the state
    old = loggp.fit(samples(seed=5), train=8)["core_latency_ns"]
    assert old["probes"] == 0 and old["used"] is None


def test_overheads_above_the_one_way_time_are_said_not_hidden():
    """On shared memory o_s + o_r can exceed T(1): L is 0, the overheads are
    scaled to reproduce T(1), and a note says by how much."""
    truth = Estimate(o_s=300.0, o_r=400.0, L=0.0, g=800.0, S=4096,
                     classes=[SizeClass(0, 0.0, 0.3, 0.1), SizeClass(4097, 2000.0, 0.08, 0.0)])
    data = samples(truth, jitter=0.0, outliers=0.0)
    data["value_ns"][(data["kind"] == loggp.KIND_RTT)] -= 100  # T(s) 50 ns under o_s + o_r + ...
    fit = loggp.fit(data, train=8)
    assert fit["L"] == pytest.approx(0.0, abs=0.5)  # the class line through T, down to the last ns
    assert any("exceed the one-way 1 B time" in n and "by 50 ns" in n for n in fit["notes"])
    assert fit["o_s"] + fit["o_r"] == pytest.approx(650.0, abs=1.0)


# ---------------------------------------------------------------------------
# The closed forms are LogGOPSim's rules: the engine agrees
# ---------------------------------------------------------------------------

EST = Estimate(o_s=250.0, o_r=250.0, L=60.0, g=700.0, S=4096,
               classes=[SizeClass(0, 60.0, 0.3, 0.12), SizeClass(4097, 1500.0, 0.08, 0.02),
                        SizeClass(1 << 21, 25000.0, 0.11, 0.2)])


def _params(est: Estimate) -> LogGOPS:
    return LogGOPS.parse(L=est.L, o=est.o, g=est.g, G=0.1, O=0.0, S=est.S,
                         classes=tuple((c.min_bytes, c.L, c.G, c.O) for c in est.classes))


def _run(text: str, est: Estimate) -> float:
    r = simulate(_engine.parse_goal(text.encode(), "t"), params=_params(est), ready_order="program")
    return float(r.max_end_ns[0])


def _goal(rank0: list[str], rank1: list[str]) -> str:
    return ("num_ranks 2\nrank 0 {\n" + "\n".join(rank0) + "\n}\nrank 1 {\n" + "\n".join(rank1) + "\n}\n")


@pytest.mark.parametrize("size", [1, 16, 4096, 65536, 1 << 20, 1 << 22])
def test_closed_forms_match_the_engine(size):
    n, d = 4, 50_000.0
    pred = predict(EST, np.array([size]), n, np.array([d]))
    s = size
    pingpong = _goal([f"l1: send {s}b to 1 tag 0", f"l2: recv {s}b from 1 tag 1"],
                     [f"l1: recv {s}b from 0 tag 0", f"l2: send {s}b to 0 tag 1", "l2 requires l1"])
    assert _run(pingpong, EST) == pytest.approx(2 * pred["pingpong"][0], abs=1.0)
    exchange = _goal([f"l1: send {s}b to 1 tag 0", f"l2: recv {s}b from 1 tag 0"],
                     [f"l1: send {s}b to 0 tag 0", f"l2: recv {s}b from 0 tag 0"])
    assert _run(exchange, EST) == pytest.approx(pred["exchange"][0], abs=1.0)
    sends = [f"l{k}: send {s}b to 1 tag 0" for k in range(1, n + 1)]
    recvs = [f"l{k}: recv {s}b from 0 tag 0" for k in range(1, n + 1)]
    reply_to = [f"l{n + 1}: send {s}b to 0 tag 1"] + [f"l{n + 1} requires l{k}" for k in range(1, n + 1)]
    train = _goal(sends + [f"l{n + 1}: recv {s}b from 1 tag 1"], recvs + reply_to)
    assert _run(train, EST) == pytest.approx(pred["train"][0], abs=1.0)
    # delayed: each send after the previous one started and d of spinning
    delayed = [f"l1: send {s}b to 1 tag 0"]
    for k in range(2, n + 1):
        delayed += [f"l{100 + k}: calc {int(d)}", f"l{100 + k} irequires l{k - 1}",
                    f"l{k}: send {s}b to 1 tag 0", f"l{k} requires l{100 + k}"]
    delayed_text = _goal(delayed + [f"l{n + 1}: recv {s}b from 1 tag 1"], recvs + reply_to)
    assert _run(delayed_text, EST) == pytest.approx(pred["delayed"][0], abs=1.0)
    # a receive completed after a long wait, posted before (early) or after (late) its message came
    wait = 5_000_000
    early = _goal([f"l1: send {s}b to 1 tag 0"], [f"l1: recv {s}b from 0 tag 0", f"l2: calc {wait}"])
    late = _goal([f"l1: send {s}b to 1 tag 0"],
                 [f"l2: calc {wait}", f"l1: recv {s}b from 0 tag 0", "l1 requires l2"])
    assert _run(early, EST) == pytest.approx(wait + pred["recv_early"][0], abs=1.0)
    assert _run(late, EST) == pytest.approx(wait + pred["recv_late"][0], abs=1.0)


def test_size_classes_reach_the_engine():
    """A message pays its own class's L, G and O: an empty class list is
    LogGOPSim's plain parameters."""
    plain = LogGOPS.parse(L=100, o=200, g=300, G=0.5, O=0.25, S=65535)
    classed = LogGOPS.parse(L=100, o=200, g=300, G=0.5, O=0.25, S=65535,
                            classes=((0, 100, 0.5, 0.25), (1000, 5000, 0.1, 0.0)))
    one = "num_ranks 2\nrank 0 {\nl1: send %db to 1 tag 0\n}\nrank 1 {\nl1: recv %db from 0 tag 0\n}\n"
    for size, want_plain, want_classed in ((999, 200 + 100 + 200 + 998 * 0.5, 200 + 100 + 200 + 998 * 0.5),
                                           (1000, 200 + 100 + 200 + 999 * 0.5, 200 + 5000 + 200 + 999 * 0.1)):
        text = (one % (size, size)).encode()
        assert simulate(_engine.parse_goal(text, "t"), params=plain).max_end_ns[0] == pytest.approx(want_plain)
        assert simulate(_engine.parse_goal(text, "t"), params=classed).max_end_ns[0] == pytest.approx(want_classed)
    assert classed.as_ns()["size_classes"][1] == {"min_bytes": 1000, "L": 5000, "G": 0.1, "O": 0}
    # an L, G or O on the command line replaces the classes: every size pays it
    assert classed.with_overrides(G="1").classes == () and classed.with_overrides(o="5").classes == classed.classes
    with pytest.raises(Exception, match="start at 0"):
        LogGOPS.parse(classes=((10, 1, 1, 1),)).to_engine()


def test_synthetic_sizes_cover_the_probe_default():
    from cloudnoise.measurement.experiments import LOGGP_SIZES

    assert SIZES == LOGGP_SIZES


def test_a_single_round_that_changed_state_is_still_fitted():
    """One round whose probes read both placements (the host moved the vCPUs
    during it): nothing would be left, so it is used, and the fit says that it
    describes no single machine state."""
    data = samples(rounds=1, core_ns=60.0, seed=6)
    core = data["kind"] == loggp.KIND_CORE_LATENCY
    first = np.flatnonzero(core)[0]
    data["value_ns"][first] = 240  # the first probe in the other placement
    fit = loggp.fit(data, train=8)
    assert fit["rounds_used"] == [0] and fit["core_latency_ns"]["rounds_other_state"] == []
    assert any("describes no single machine state" in n for n in fit["notes"])
    _check_recovered(fit, TRUTH)
