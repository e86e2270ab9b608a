"""The paper authors' network semantics (the engine's switch-draws mode,
src/engine/noise/switch_draws.hpp), against answers worked out by hand from
their simulator's rules: per-message L and per-16-MiB-block G picked from the
near or far sample set (rank // nodes_per_switch), rendezvous 2 L later."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cloudnoise import _engine
from cloudnoise.schedules.patterns import CollectiveSpec, generate
from cloudnoise.simulation.params import LogGOPS

MiB = 1 << 20


def params(L=2500, o=1500, g=1000, G=6, S=65535) -> _engine.LogGOPSParams:
    return LogGOPS.parse(L=str(L), o=str(o), g=str(g), G=str(G), O="0", S=str(S)).to_engine()


def draws(near_L, near_G, far_L=None, far_G=None, per_switch=1) -> _engine.SwitchDraws:
    """Sample sets in ns (L) and ns per byte (G), given as lists."""
    def ps(v):
        return np.ascontiguousarray(np.round(np.asarray(v, dtype=np.float64) * 1000), dtype=np.int64)

    def fs(v):
        return np.ascontiguousarray(np.round(np.asarray(v, dtype=np.float64) * 1_000_000), dtype=np.int64)

    far_L = near_L if far_L is None else far_L
    far_G = near_G if far_G is None else far_G
    return _engine.SwitchDraws(ps(near_L), fs(near_G), ps(far_L), fs(far_G), per_switch)


def noise(d: _engine.SwitchDraws) -> _engine.NoiseModel:
    m = _engine.NoiseModel()
    m.switch_draws = d
    return m


def pair(size: int, src: int = 0, dst: int = 1, ranks: int = 2) -> _engine.Schedule:
    body = []
    for r in range(ranks):
        if r == src:
            body.append(f"rank {r} {{\nl1: send {size}b to {dst} tag 0\n}}")
        elif r == dst:
            body.append(f"rank {r} {{\nl1: recv {size}b from {src} tag 0\n}}")
        else:
            body.append(f"rank {r} {{\n}}")
    return _engine.parse_goal((f"num_ranks {ranks}\n" + "\n".join(body) + "\n").encode(), "test")


def run(sched, p, model, seed=0, count=1, **kw):
    return _engine.run(sched, p, model, seed=seed, first=0, count=count, **kw)


def test_sets_of_one_value_are_the_parameters_for_eager_messages():
    # One value per set, equal to L and G: every eager message costs what
    # LogGOPSim charges (o + L, then o + (s-1) G at the receiver).
    p = params()
    for size in (1, 8, 1000, 65535):
        plain = run(pair(size), p, _engine.NoiseModel())
        mine = run(pair(size), p, noise(draws([2500], [6])))
        assert list(mine["host_end_ps"]) == list(plain["host_end_ps"])
        assert mine["host_end_ps"][1] == (1500 + 2500 + 1500 + (size - 1) * 6) * 1000


def test_rendezvous_pays_two_more_latencies():
    # Above S: the message arrives at o + 3L; the sender is held until then
    # (matched at arrival); the receiver then pays o + (s-1) G.
    size = 100_000
    r = run(pair(size), params(), noise(draws([2500], [6])))
    arrival = 1500 + 3 * 2500
    assert list(r["host_end_ps"]) == [arrival * 1000, (arrival + 1500 + (size - 1) * 6) * 1000]
    # Public LogGOPSim's rendezvous (no switch draws): o + L.
    plain = run(pair(size), params(), _engine.NoiseModel())
    assert plain["host_end_ps"][0] == (1500 + 2500) * 1000


def test_near_and_far_by_nodes_per_switch():
    # 4 ranks, 2 per switch: 0 -> 1 is near (L 1000 ns, G 1 ns/B), 0 -> 2 far
    # (L 5000 ns, G 3 ns/B).
    p = params(S=10**9)
    d = draws([1000], [1], [5000], [3], per_switch=2)
    assert not d.is_far(0, 1) and d.is_far(1, 2) and d.is_far(0, 3) and not d.is_far(2, 3)
    near = run(pair(101, 0, 1, 4), p, noise(d))
    far = run(pair(101, 0, 2, 4), p, noise(d))
    assert near["host_end_ps"][1] == (1500 + 1000 + 1500 + 100 * 1) * 1000
    assert far["host_end_ps"][2] == (1500 + 5000 + 1500 + 100 * 3) * 1000


def ring(ranks: int, size: int) -> _engine.Schedule:
    """Every rank sends to the next and receives from the previous, once."""
    text = [f"num_ranks {ranks}"]
    for r in range(ranks):
        text.append(f"rank {r} {{\nl1: send {size}b to {(r + 1) % ranks} tag 0\n"
                    f"l2: recv {size}b from {(r - 1) % ranks} tag 0\n}}")
    return _engine.parse_goal(("\n".join(text) + "\n").encode(), "test")


def test_two_switch_ring_shows_the_split():
    # 8 ranks, 4 per switch: receivers 0 and 4 get their message from the
    # other switch (7 -> 0, 3 -> 4), the others from their own.
    p = params(S=10**9)
    d = draws([1000], [0], [9000], [0], per_switch=4)
    r = run(ring(8, 1), p, noise(d))
    ends = [e // 1000 for e in r["host_end_ps"]]
    # A rank sends at 0 (o = 1500 ns), its message arrives at o + L, then o.
    near_end, far_end = 1500 + 1000 + 1500, 1500 + 9000 + 1500
    assert ends == [far_end, near_end, near_end, near_end, far_end, near_end, near_end, near_end]


def test_one_draw_per_16_MiB_block():
    assert [_engine.SwitchDraws.blocks(b) for b in (0, 1, 2, 16 * MiB, 16 * MiB + 1, 16 * MiB + 2, 64 * MiB + 1)] \
        == [0, 0, 1, 1, 1, 2, 4]
    # Two gap values, 1 and 3 ps/B, picked per block. A message of 2 blocks
    # (16 MiB + 1 + 1 bytes: 16 MiB and 1 byte charged) can only cost
    # 16 MiB * a + 1 * b for a, b in {1, 3}: four values, each about a quarter
    # of the time; per-message draws would give only two.
    p = params(S=10**12)
    d = _engine.SwitchDraws(np.array([0], np.int64), np.array([1000, 3000], np.int64),
                            np.array([0], np.int64), np.array([1000, 3000], np.int64), 1)
    size = 16 * MiB + 2
    r = run(pair(size), LogGOPS.parse(L="0", o="0", g="0", G="0", O="0", S=str(10**12)).to_engine(),
            noise(d), seed=7, count=4000)
    ps = np.asarray(r["max_end_ps"])
    expected = {16 * MiB * a + b for a in (1, 3) for b in (1, 3)}
    values, counts = np.unique(ps, return_counts=True)
    assert set(values.tolist()) == expected
    assert all(abs(c / 4000 - 0.25) < 0.03 for c in counts)


def test_a_one_block_message_draws_what_a_longer_ones_first_block_draws():
    # A message of at most 16 MiB charged (the engine's inline path) draws
    # its gap as block 0 of a longer message (the loop): the same counter,
    # so for the same seed and send op 1 byte costs G0, 16 MiB cost
    # 16 MiB * G0, and 16 MiB + 1 byte cost 16 MiB * G0 + G1.
    gaps = np.arange(1, 41, dtype=np.int64) * 1000  # fs per byte, whole ps: 40 values
    d = _engine.SwitchDraws(np.array([0], np.int64), gaps, np.array([0], np.int64), gaps, 1)
    p = LogGOPS.parse(L="0", o="0", g="0", G="0", O="0", S=str(10**12)).to_engine()

    def ends(size: int) -> np.ndarray:
        return np.asarray(run(pair(size), p, noise(d), seed=5, count=300)["max_end_ps"])

    one_byte, one_block, two_blocks = ends(2), ends(16 * MiB + 1), ends(16 * MiB + 2)
    assert set((one_byte * 1000).tolist()) <= set(gaps.tolist())
    assert len(set(one_byte.tolist())) > 20  # the draws do vary
    assert np.array_equal(one_block, 16 * MiB * one_byte)
    second = two_blocks - one_block
    assert set((second * 1000).tolist()) <= set(gaps.tolist())
    assert not np.array_equal(second, one_byte)  # block 1 is a draw of its own


def test_latency_picked_uniformly_from_the_samples():
    # L drawn per message from {1000, 2000, 4000} ns, each a third of the time.
    p = params(S=10**9)
    d = draws([1000, 2000, 4000], [0])
    r = run(pair(1), p, noise(d), seed=3, count=3000)
    lat = np.asarray(r["max_end_ps"]) // 1000 - 3000  # minus o at both ends
    values, counts = np.unique(lat, return_counts=True)
    assert values.tolist() == [1000, 2000, 4000]
    assert all(abs(c / 3000 - 1 / 3) < 0.03 for c in counts)


def test_each_position_keeps_its_sample_whatever_the_set_is_stored_as():
    # The engine stores a set as one- or two-byte codes into its distinct
    # values (up to 256 / 65,536 of them), else raw. Position i holds
    # 1000 + perm(i) ns, so a message's latency names the position drawn;
    # for the same repetition the draw is floor(u * n) of one uniform u, so
    # the positions drawn from sets of 200, 1,000 and 70,000 samples (one of
    # each storage) must all fall in the interval the largest one gives.
    p = params(S=10**9)
    rng = np.random.default_rng(5)
    drawn = {}
    for n in (200, 1000, 70_000):
        perm = rng.permutation(n)
        inverse = np.argsort(perm)
        r = run(pair(1), p, noise(draws(1000 + perm, [0])), seed=11, count=400)
        value = np.asarray(r["max_end_ps"]) // 1000 - 3000 - 1000
        drawn[n] = inverse[value]
    big = drawn[70_000]
    for n in (200, 1000):
        lo, hi = (big * n) // 70_000, ((big + 1) * n - 1) // 70_000
        assert np.all((drawn[n] >= lo) & (drawn[n] <= hi))
    assert len(set(drawn[200].tolist())) > 100  # the draws do vary


def test_sender_and_receiver_charge_the_same_blocks():
    # Two back-to-back messages from 0 to 1, o = L = g = 0: the second send
    # waits for the NIC, free at G1 (the first message's block sum as the
    # sender drew it); rank 0 ends at G1. The receiver is busy until its own
    # G1 and then charges the second message: it ends at max(G1, G1') + G2.
    # Both ends draw the same blocks exactly when rank 1's end minus rank
    # 0's is a possible block sum for every seed.
    p = LogGOPS.parse(L="0", o="0", g="0", G="0", O="0", S=str(10**12)).to_engine()
    d = _engine.SwitchDraws(np.array([0], np.int64), np.array([1000, 7000], np.int64),
                            np.array([0], np.int64), np.array([1000, 7000], np.int64), 1)
    size = 32 * MiB + 2  # (size - 1) bytes: blocks of 16 MiB, 16 MiB and 1 byte
    text = (f"num_ranks 2\nrank 0 {{\nl1: send {size}b to 1 tag 0\nl2: send {size}b to 1 tag 1\nl2 requires l1\n}}\n"
            f"rank 1 {{\nl1: recv {size}b from 0 tag 0\nl2: recv {size}b from 0 tag 1\n}}\n")
    sched = _engine.parse_goal(text.encode(), "test")
    blocks = [16 * MiB, 16 * MiB, 1]
    possible = {sum(b * g for b, g in zip(blocks, gs)) for gs in
                [(a, b, c) for a in (1, 7) for b in (1, 7) for c in (1, 7)]}
    firsts = set()
    for seed in range(40):
        end0, end1 = (int(e) for e in run(sched, p, noise(d), seed=seed)["host_end_ps"])
        assert end0 in possible and end1 - end0 in possible
        firsts.add(end0)
    assert len(firsts) > 3  # the draws do vary


def test_cannot_be_combined_with_todays_network_noise():
    m = noise(draws([2500], [6]))
    m.latency_excess_ps = _engine.QuantileTable(np.array([0.0, 1.0]), np.array([0.0, 10.0]))
    with pytest.raises(ValueError, match="switch draws"):
        run(pair(8), params(), m)


@pytest.mark.parametrize("bad", [
    dict(near_L=[], near_G=[6]),
    dict(near_L=[-1], near_G=[6]),
])
def test_bad_sample_sets_are_refused(bad):
    with pytest.raises(ValueError):
        draws(bad["near_L"], bad["near_G"])
    with pytest.raises(ValueError):
        _engine.SwitchDraws(np.array([1], np.int64), np.array([1], np.int64),
                            np.array([1], np.int64), np.array([1], np.int64), 0)


def test_same_seed_same_bits_sequential_and_windowed():
    # The windows (host by host) and the global queue give the same runs.
    sched = generate(CollectiveSpec("dissemination", 64, 16))
    p = params(L=1000, o=500, g=100, G=1)
    d = draws(np.linspace(900, 3000, 57), [1, 2, 5], np.linspace(2000, 9000, 31), [2, 4], per_switch=16)
    a = run(sched, p, noise(d), seed=5, count=20)
    b = run(sched, p, noise(d), seed=5, count=20, sequential=True)
    assert list(a["max_end_ps"]) == list(b["max_end_ps"])
    assert a["windowed"] > 0


# --- a profile that selects the mode (model/switch_draws.py, model/profile.py) ---

from cloudnoise import simulate  # noqa: E402
from cloudnoise.errors import CloudnoiseError  # noqa: E402
from cloudnoise.model.profile import (  # noqa: E402
    Hardware, LogGOPS as ProfileLogGOPS, Prices, Provenance, RackPlacement, SystemProfile, load_profile, save_profile,
)
from cloudnoise.model.switch_draws import SwitchDraws as SwitchDrawsPart  # noqa: E402


def switch_profile(tmp_path, samples: dict[str, list[int]] | None):
    prov = Provenance("published", "test")
    if samples is not None:
        np.savez_compressed(tmp_path / "samples.npz", **{k: np.array(v, dtype=np.int64) for k, v in samples.items()})
    profile = SystemProfile(
        name="two-switch", description="test",
        loggops=ProfileLogGOPS(prov, L=1000.0, o=100.0, g=0.0, G=0.002, O=0.0, S=65536),
        hardware=Hardware(prov), prices=Prices(prov),
        different_racks=RackPlacement(ProfileLogGOPS(prov, L=5000.0, o=100.0, g=0.0, G=0.004, O=0.0, S=65536)),
        switch_draws=SwitchDrawsPart(prov, nodes_per_switch=2, samples="samples.npz" if samples else None),
    )
    save_profile(profile, tmp_path / "p.json")
    return load_profile(tmp_path / "p.json")


SAMPLES = {"same_rack_latency_ps": [10, 20, 30], "same_rack_gap_ps": [7],
           "different_racks_latency_ps": [4, 8, 8, 100], "different_racks_gap_ps": [3]}


def test_profile_round_trip_and_noiseless_near_for_both(tmp_path):
    p = switch_profile(tmp_path, SAMPLES)
    assert p.switch_draws.nodes_per_switch == 2 and p.to_dict()["switch_draws"]["samples"] == "samples.npz"
    # Noiseless, across racks: the authors' simulator charges the near L and G
    # to far messages too (it ignores its far options without sample files).
    far_pair = pair(101, 0, 2, 4)
    r = simulate(far_pair, profile=p.at("different-racks"), noise="none")
    assert r.host_end_ns.tolist()[2] == 100 + 1000 + 100 + 100 * 0.002


def test_profile_network_variant_draws_the_scaled_samples(tmp_path):
    p = switch_profile(tmp_path, SAMPLES).at("different-racks")
    # Far (0 -> 2): latency samples {4, 8, 8, 100} scaled to median 5000 ns:
    # {2500, 5000, 5000, 62500} ns. Gap: one sample, scaled to 4 ps/B.
    r = simulate(pair(101, 0, 2, 4), profile=p, noise="network", reps=400, seed=2)
    lat = np.round(np.asarray(r.runtime_ns) - 200 - 100 * 0.004, 6)
    assert set(lat.tolist()) == {2500.0, 5000.0, 62500.0}
    # Near (0 -> 1) across racks: the same run's samples scaled to the same rack's L (1000 ns).
    r = simulate(pair(101, 0, 1, 4), profile=p, noise="network", reps=400, seed=2)
    lat = np.round(np.asarray(r.runtime_ns) - 200 - 100 * 0.002, 6)
    assert set(lat.tolist()) == {500.0, 1000.0, 12500.0}


def test_same_rack_uses_its_own_samples_for_every_message(tmp_path):
    p = switch_profile(tmp_path, SAMPLES).at("same-rack")
    r = simulate(pair(101, 0, 2, 4), profile=p, noise="network", reps=300, seed=4)
    lat = np.round(np.asarray(r.runtime_ns) - 200 - 100 * 0.002, 6)
    assert set(lat.tolist()) == {500.0, 1000.0, 1500.0}


def test_profile_switch_draws_refuse_what_they_replace(tmp_path):
    p = switch_profile(tmp_path, SAMPLES)
    with pytest.raises(CloudnoiseError, match="explicit L or G"):
        simulate(pair(8), profile=p, L="2us")
    with pytest.raises(CloudnoiseError, match="switch draws' samples"):
        simulate(pair(8), profile=p, latency_noise="lognormal:median=1us,sigma=0.5")


@pytest.mark.parametrize("arrays, words", [
    ({"colour": [1]}, "unknown array"),
    ({"same_rack_latency_ps": [-5], "same_rack_gap_ps": [1]}, "outside"),
])
def test_bad_samples_files_are_one_line_errors(tmp_path, arrays, words):
    p = switch_profile(tmp_path, arrays)
    with pytest.raises(CloudnoiseError, match=words) as err:
        simulate(pair(8), profile=p, noise="network")
    assert "\n" not in str(err.value)


def test_samples_file_that_is_not_npz(tmp_path):
    p = switch_profile(tmp_path, SAMPLES)
    (tmp_path / "samples.npz").write_text("not a zip")
    with pytest.raises(CloudnoiseError, match="not a readable samples file"):
        simulate(pair(8), profile=load_profile(tmp_path / "p.json"), noise="network")
    assert p.switch_draws is not None


def test_pickled_arrays_are_refused_not_loaded(tmp_path):
    # An object array needs pickle to load; a samples file is data, so it is refused.
    p = switch_profile(tmp_path, SAMPLES)
    np.savez(tmp_path / "samples.npz", same_rack_latency_ps=np.array([{"a": 1}], dtype=object),
             same_rack_gap_ps=np.array([1]))
    with pytest.raises(CloudnoiseError, match="not a readable samples file") as err:
        simulate(pair(8), profile=load_profile(tmp_path / "p.json"), noise="network")
    assert "\n" not in str(err.value) and p.switch_draws is not None


@pytest.mark.parametrize("arrays, words", [
    ({"starts_ns": [0, 10]}, "exactly starts_ns and durations_ns"),
    ({"starts_ns": [0, 10], "durations_ns": [1]}, "same length"),
    ({"starts_ns": [0, 10], "durations_ns": [1, -1]}, ">= 0"),
    ({"starts_ns": [0.5, 10], "durations_ns": [1, 1]}, "integer array"),
])
def test_bad_npz_os_traces_are_one_line_errors(tmp_path, arrays, words):
    from cloudnoise.model.os_noise import read_trace

    np.savez(tmp_path / "t.npz", **{k: np.array(v) for k, v in arrays.items()})
    with pytest.raises(CloudnoiseError, match=words) as err:
        read_trace(tmp_path / "t.npz")
    assert "\n" not in str(err.value)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(-64, 64))
def test_near_or_far_is_the_quotient_by_nodes_per_switch(per_switch, a, step):
    # The engine divides by a multiply with the reciprocal: the quotient must
    # be exact for every 32-bit rank and divisor, at switch edges included.
    b = min(max(a + step, 0), 2**32 - 1)
    one = np.array([1], np.int64)
    d = _engine.SwitchDraws(one, one, one, one, per_switch)
    for x, y in ((a, b), (a - a % per_switch, a - a % per_switch - 1), (a, a // per_switch * per_switch + per_switch)):
        if 0 <= x < 2**32 and 0 <= y < 2**32:
            assert d.is_far(x, y) == (x // per_switch != y // per_switch)


def _with_latency_noise(tmp_path, samples: list[int]):
    """A copy of aws-hpc-metal (switch draws) that also holds latency noise from `samples` (ns)."""
    import json

    import cloudnoise

    path = cloudnoise.copy_profile("aws-hpc-metal", tmp_path / "p")
    (path.parent / "lat.csv").write_text("latency_ns\n" + "\n".join(map(str, samples)) + "\n")
    doc = json.loads(path.read_text())
    doc["latency_noise"] = {"provenance": {"kind": "measured", "source": "a test"}, "samples": "lat.csv",
                            "column": "latency_ns"}
    path.write_text(json.dumps(doc))
    return path


def test_a_part_the_switch_draws_override_is_still_checked(tmp_path):
    """switch_draws take precedence over latency_noise; a latency_noise with a sample that
    would make a message arrive before its send is refused all the same, in one line that
    names the precedence."""
    import subprocess
    import sys

    from measure_support import env

    path = _with_latency_noise(tmp_path, [100, -50_000_000, 200])  # 50 ms earlier than L (28 us) allows
    proc = subprocess.run([sys.executable, "-m", "cloudnoise", "simulate", "--pattern", "dissemination", "--ranks", "16",
                           "--size", "16B", "--profile", str(path), "--reps", "3"],
                          capture_output=True, text=True, env=env(), timeout=120)
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1, proc.stderr
    assert "lat.csv:3: sample -50000000 is below -28000 ns" in lines[0]
    assert "switch_draws take precedence over latency_noise in simulations, but every part" in lines[0]


def test_a_valid_overridden_part_is_named_and_changes_nothing(tmp_path):
    import cloudnoise

    path = _with_latency_noise(tmp_path, [100, 50, 200])
    with_part = cloudnoise.simulate(pattern="dissemination", ranks=64, size="16B", profile=str(path), reps=5, seed=3)
    without = cloudnoise.simulate(pattern="dissemination", ranks=64, size="16B", profile="aws-hpc-metal", reps=5, seed=3)
    assert with_part.variant == without.variant == "both"
    assert np.array_equal(with_part.runtime_ns, without.runtime_ns)
    sources = with_part.to_dict()["noise_sources"]
    assert "take precedence over its latency_noise, not used" in json.dumps(sources)
