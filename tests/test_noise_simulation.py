"""Noise in the simulator: known answers, the documented OS-noise rule, and
reproducibility of Monte Carlo runs."""

from __future__ import annotations

import json

import numpy as np
import pyarrow.parquet as pq
import pytest

from cloudnoise import _engine, simulate
from cloudnoise.model.distributions import parse_distribution
from cloudnoise.model.os_noise import OSNoiseTrace
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="6", O="0", S="65535")
EXAMPLE = "examples/dissemination_16.goal"


def chain(*calcs_ns: int) -> _engine.Schedule:
    lines = ["num_ranks 1", "rank 0 {"]
    for i, c in enumerate(calcs_ns):
        lines.append(f"l{i}: calc {c}")
        if i:
            lines.append(f"l{i} requires l{i - 1}")
    return _engine.parse_goal(("\n".join(lines) + "\n}\n").encode())


def os_setup(starts, durations, phase=0) -> NoiseSetup:
    return NoiseSetup(os_trace=OSNoiseTrace(np.array(starts), np.array(durations)), os_phase_ns=phase)


def test_constant_latency_excess_shifts_dissemination_by_rounds():
    # 16 ranks: 4 rounds, each on the critical path once.
    base = simulate(EXAMPLE, params=PARAMS).runtime_ns[0]
    noise = NoiseSetup(latency=parse_distribution("constant:value=250ns"))
    noisy = simulate(EXAMPLE, params=PARAMS, noise=noise, variant="network")
    assert noisy.runtime_ns[0] - base == 4 * 250


def test_constant_bandwidth_fraction_scales_G():
    # Half the bandwidth doubles G: a 1001-byte message pays 1000 * 12 ns.
    text = b"num_ranks 2\nrank 0 {\nl1: send 1001b to 1 tag 0\n}\nrank 1 {\nl1: recv 1001b from 0 tag 0\n}\n"
    noise = NoiseSetup(bandwidth=parse_distribution("constant:value=0.5"))
    r = simulate(_engine.parse_goal(text), params=PARAMS, noise=noise, variant="network")
    assert r.host_end_ns.tolist() == [1500, 1500 + 2500 + 1500 + 1000 * 12]


def test_bandwidth_fraction_scales_each_size_classs_own_G():
    # With size classes every class has its own G, and the engine keeps a
    # table of drawn G per class: a message pays its own class's G over the
    # fraction. Constant 0.5 and 0.8 make each G exact: 2x and 1.25x.
    classed = LogGOPS.parse(L=100, o=200, g=300, G=0.5, O=0, S=65535,
                            classes=((0, 100, 0.5, 0.0), (1000, 5000, 0.1, 0.0)))
    one = "num_ranks 2\nrank 0 {\nl1: send %db to 1 tag 0\n}\nrank 1 {\nl1: recv %db from 0 tag 0\n}\n"
    for fraction in (0.5, 0.8):
        noise = NoiseSetup(bandwidth=parse_distribution(f"constant:value={fraction}"))
        for size, L, G in ((999, 100, 0.5), (1000, 5000, 0.1), (4001, 5000, 0.1)):
            r = simulate(_engine.parse_goal((one % (size, size)).encode()), params=classed, noise=noise,
                         variant="network", reps=3, seed=4)
            assert r.max_end_ns.tolist() == pytest.approx([200 + L + 200 + (size - 1) * G / fraction] * 3)


def test_single_detour_delays_a_chain_by_its_duration():
    # Trace: one 2 us detour at 5 us (the zero-length ones only bound it).
    noise = os_setup([0, 5_000, 10**9], [0, 2_000, 0], phase=0)
    r = simulate(chain(3_000, 4_000, 1_000), params=PARAMS, noise=noise, variant="os")
    assert r.runtime_ns[0] == 8_000 + 2_000
    # A chain that ends before the detour is untouched.
    r = simulate(chain(1_000, 1_000), params=PARAMS, noise=noise, variant="os")
    assert r.runtime_ns[0] == 2_000


def test_periodic_noise_hand_computed():
    # 1 kHz, 10 us detours at 0, 1 ms, 2 ms, ...; phase 0. Rule (LogGOPSim's):
    # a detour counts if it starts strictly inside the activity, or is in
    # progress at its start -- except the trace's first detour.
    starts = np.arange(0, 10**7 + 1, 10**6)
    noise = os_setup(starts, np.full(starts.size, 10_000), phase=0)
    # calc of 1.5 ms from 0: meets the detour at 1 ms -> +10 us.
    assert simulate(chain(1_500_000), params=PARAMS, noise=noise, variant="os").runtime_ns[0] == 1_510_000
    # calc of exactly 1 ms: the detour at 1 ms starts at its end, not inside.
    assert simulate(chain(1_000_000), params=PARAMS, noise=noise, variant="os").runtime_ns[0] == 1_000_000
    # Starting inside a detour: phase 1.005 ms is 5 us into the detour at 1 ms.
    noise.os_phase_ns = 1_005_000
    assert simulate(chain(100_000), params=PARAMS, noise=noise, variant="os").runtime_ns[0] == 105_000


def test_os_noise_rule_matches_the_reference_walk():
    # The engine's galloping lookup against a direct transcription of
    # LogGOPSim's walk, over random traces and activity sequences.
    rng = np.random.default_rng(7)
    for _ in range(4):
        n = int(rng.integers(2, 400))
        st = np.sort(rng.integers(0, 10**9, n)).astype(np.int64)
        du = rng.integers(0, 10**6, n).astype(np.int64)
        trace = _engine.OsNoiseTrace(st, du)

        def walk(start: int, length: int) -> int:
            span = int(st[-1])
            s = start % (span - length if span > length else span)
            pos, noise = 0, 0
            if s > st[0]:
                pos = int(np.searchsorted(st, s, side="right")) - 1
                noise += max(0, int(st[pos] + du[pos]) - s)
            end = s + length
            if pos == n - 1:
                end, pos = end - span, 0
            while end > st[pos + 1]:
                pos += 1
                noise += int(du[pos])
                if pos == n - 1:
                    end, pos = end - span, 0
            return noise

        starts = np.cumsum(rng.integers(0, 10**7, 500)).astype(np.int64)
        lens = rng.choice([0, 1_000, 10**5, 10**7, 10**9, 3 * 10**9], 500).astype(np.int64)
        got = trace.noise_many(starts, lens)
        assert got.tolist() == [walk(int(a), int(b)) for a, b in zip(starts, lens)]


def test_quiet_spans_charge_what_the_lookup_charges():
    # The engine serves activities of length o inside a rank's last quiet
    # span without a lookup: every start in a span must get the lookup's
    # answer, at the edges too.
    rng = np.random.default_rng(11)
    spans = 0
    for _ in range(6):
        n = int(rng.integers(2, 300))
        st = np.sort(rng.integers(0, 10**9, n)).astype(np.int64)
        du = rng.integers(0, 3 * 10**6, n).astype(np.int64)
        trace = _engine.OsNoiseTrace(st, du)
        for start, length in zip(rng.integers(0, 3 * 10**9, 300), rng.choice([0, 1, 150_000, 10**6, 10**8], 300)):
            lo, hi, end = trace.quiet_span(int(start), int(length))
            if lo > hi:
                continue
            spans += 1
            assert lo <= start <= hi
            for x in {lo, hi, int(start), *rng.integers(lo, hi + 1, 5).tolist()}:
                assert trace.noise(int(x), int(length)) == max(0, end - int(x))
    assert spans > 200


def test_engine_quantile_table_interpolates_linearly():
    p = np.array([0.0, 0.5, 0.9, 0.999, 1.0])
    v = np.array([0.0, 10.0, 20.0, 1000.0, 5000.0])
    table = _engine.QuantileTable(p, v)
    u = np.random.default_rng(3).random(2000)
    assert np.allclose([table.quantile(x) for x in u], np.interp(u, p, v), rtol=0, atol=1e-9)


def test_draws_from_random_bits_equal_the_quantile_of_their_uniform():
    # The engine draws from 64 hashed bits: top 12 bits as the bucket, top
    # 53 as u. Bit for bit quantile(u), on a table with single-segment and
    # searched buckets, at u = 0 and next to bucket edges.
    p = np.concatenate([[0.0], np.sort(np.random.default_rng(5).random(3000)), [1.0]])
    p = np.unique(np.concatenate([p, 1.0 - np.logspace(-12, -2, 400), [1e-9]]))
    v = np.cumsum(np.random.default_rng(6).random(p.size)) * 1e3
    table = _engine.QuantileTable(p, v)
    rng = np.random.default_rng(8)
    bits = [int(b) for b in rng.integers(0, 2**63, 4000, dtype=np.int64)] + [int(b) * 2 + 1 for b in rng.integers(0, 2**62, 1000)]
    bits += [0, 2**11 - 1, 2**11, 2**64 - 1, (4095 << 52) - 1, 4095 << 52, (1 << 52) - 1, 1 << 52]
    for b in bits:
        assert table.quantile_of_bits(b) == table.quantile((b >> 11) * 2.0**-53)



def _bits_of(x: float) -> int:
    return int(np.float64(x).view(np.uint64))


@pytest.mark.parametrize(
    "case", ["grid", "subnormal_slopes", "negative_zero_start", "infinite_slope", "huge_slopes"]
)
def test_draws_in_buckets_that_start_their_segment_equal_the_quantile_of_their_uniform(case):
    # The model's tables are grids of 1/4096 steps in the body, so most
    # buckets start their own segment and take the short path (the low 41
    # bits times slope * 2^-53). Bit for bit quantile(u), sign of zero and
    # NaN included, also where that scaling would not be exact (subnormal
    # slopes), at u = 0 (a first value of -0) and with infinite slopes.
    rng = np.random.default_rng(11)
    p = np.concatenate([np.arange(4000) / 4096, 1.0 - np.logspace(-13, np.log10(1 - 3999 / 4096) - 1e-3, 300)[::-1], [1.0]])
    p = np.unique(p)
    v = np.cumsum(rng.random(p.size)) * 1e3
    if case == "subnormal_slopes":
        v = np.cumsum(rng.choice([0.0, 5e-324, 1e-322, 1e-320, 1e-315], p.size))
    elif case == "negative_zero_start":
        v = np.concatenate([[-0.0], v[1:]])
    elif case == "infinite_slope":
        v = np.concatenate([[0.0, 1.7e308], np.full(p.size - 2, 1.7e308)])
        v[3000:] = 1.79e308
    elif case == "huge_slopes":
        v = np.cumsum(rng.random(p.size)) * 1e300
    table = _engine.QuantileTable(p, v)
    top53 = [int(x) for x in rng.integers(0, 2**53, 20_000, dtype=np.int64)]
    edges = [(k << 41) + d for k in range(4096) for d in (0, 1, (1 << 41) - 1)]
    for t in [0, 1, 2**53 - 1, *edges, *top53]:
        b = (t << 11) | int(rng.integers(0, 2**11))
        assert _bits_of(table.quantile_of_bits(b)) == _bits_of(table.quantile(t * 2.0**-53)), (case, t)

def test_empirical_latency_noise_reproduces_its_quantiles(tmp_path):
    # Drawn per message by the engine: the excess of many one-message runs
    # follows the samples' distribution.
    samples = np.random.default_rng(5).lognormal(6.0, 0.8, 20_000)
    path = tmp_path / "lat.txt"
    path.write_text("\n".join(f"{x:.3f}" for x in samples))
    text = b"num_ranks 2\nrank 0 {\nl1: send 1b to 1 tag 0\n}\nrank 1 {\nl1: recv 1b from 0 tag 0\n}\n"
    noise = NoiseSetup(latency=parse_distribution(str(path)))
    r = simulate(_engine.parse_goal(text), params=PARAMS, noise=noise, variant="network", reps=4000, seed=11, threads=2)
    excess = np.asarray(r.runtime_ns, dtype=float) - (1500 + 2500 + 1500)
    for q in (0.1, 0.5, 0.9):
        assert np.quantile(excess, q) == pytest.approx(np.quantile(samples, q), rel=0.05)


def test_repetitions_are_reproducible_and_thread_independent():
    noise = NoiseSetup(
        os_trace=OSNoiseTrace(np.arange(0, 10**8, 10**5), np.full(1000, 3_000)),
        latency=parse_distribution("lognormal:median=800ns,sigma=0.7"),
        bandwidth=parse_distribution("uniform:low=0.5,high=1"),
    )
    one = simulate(EXAMPLE, params=PARAMS, noise=noise, reps=40, seed=9, threads=1).runtime_ns
    two = simulate(EXAMPLE, params=PARAMS, noise=noise, reps=40, seed=9, threads=2).runtime_ns
    assert one.tolist() == two.tolist()
    assert len(set(one.tolist())) > 5  # the noise does vary between repetitions
    alone = simulate(EXAMPLE, params=PARAMS, noise=noise, reps=1, first_rep=17, seed=9).runtime_ns
    assert alone[0] == one[17]
    other_seed = simulate(EXAMPLE, params=PARAMS, noise=noise, reps=40, seed=10).runtime_ns
    assert other_seed.tolist() != one.tolist()


def test_cli_variants_json_and_parquet(run_cli, tmp_path):
    out = tmp_path / "runs.parquet"
    proc = run_cli(
        "simulate", EXAMPLE, "--latency-noise", "lognormal:median=500ns,sigma=0.5",
        "--os-noise", "periodic:frequency=2000,duration=5us", "--noise", "none,os,network,both",
        "--reps", "25", "--seed", "3", "--json", "--out", out,
    )
    assert proc.returncode == 0, proc.stderr
    d = json.loads(proc.stdout)
    assert d["reps"] == 25 and len(d["runtime_ns"]) == 25
    assert set(d["variants"]) == {"none", "os", "network", "both"}
    assert d["variants"]["none"]["statistics"]["median_ns"] == d["runtime_ns"][0]
    net = d["variants"]["network"]["statistics"]
    assert net["median_ci_low_ns"] <= net["median_ns"] <= net["median_ci_high_ns"]
    table = pq.read_table(out).to_pydict()
    assert len(table["rep"]) == 100 and set(table["variant"]) == {"none", "os", "network", "both"}


def test_cli_noise_errors_are_one_line(run_cli, tmp_path):
    proc = run_cli("simulate", EXAMPLE, "--noise", "os")
    assert proc.returncode == 2 and "--os-noise" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    bad = tmp_path / "trace.txt"
    bad.write_text("0\t100\nbanana\n")
    proc = run_cli("simulate", EXAMPLE, "--os-noise", bad)
    assert proc.returncode == 2 and f"{bad}:2" in proc.stderr and "Traceback" not in proc.stderr


def _switch_points(table: _engine.QuantileTable, G_fs: int) -> np.ndarray:
    """Per bucket, the first of its 2^41 draws whose G (by the formula) is
    below the G at the bucket's start: a binary search of our own, over all
    buckets at once (2^41 where G does not change)."""
    k = np.arange(4096, dtype=np.uint64)

    def formula(low41: np.ndarray) -> np.ndarray:
        bits = ((k << np.uint64(41)) | low41.astype(np.uint64)) << np.uint64(11)
        return _engine.drawn_gaps(table, G_fs, bits)[1]

    first = formula(np.zeros(4096, dtype=np.uint64))
    lo = np.zeros(4096, dtype=np.int64)
    hi = np.full(4096, 2**41, dtype=np.int64)  # G(hi) < G(first), or hi past the bucket
    while np.any(hi - lo > 1):
        mid = lo + (hi - lo) // 2
        same = formula(mid) == first
        lo = np.where(same, mid, lo)
        hi = np.where(same, hi, mid)
    return hi


@pytest.mark.parametrize("G_fs", [0, 1, 80, 41_135, 85_179, 292_826, 10**6, 2**40, 2**51])
def test_the_tabulated_drawn_gap_is_the_formulas_bit_for_bit(G_fs):
    # The engine reads a message's G under bandwidth noise from a table of
    # the G each bucket of draws gives (one value, or two with a switch
    # point): exactly G_fs / max(1e-9, fraction) rounded, at every bucket's
    # edges, at each switch point and its neighbours, and at random draws.
    # The fraction is shaped as the calibrated clouds' (within 1% of peak,
    # rare drops) plus a dense tail, where buckets hold several segments.
    from cloudnoise.model.distributions import Mixture, Uniform

    dist = Mixture(weights=(0.9998, 0.0002), components=(Uniform(low=0.9914, high=1.0), Uniform(low=0.5, high=0.85)))
    p, v = dist.to_quantile_table()
    table = _engine.QuantileTable(np.ascontiguousarray(p), np.ascontiguousarray(v))
    switch = _switch_points(table, G_fs)
    k = np.arange(4096, dtype=np.int64)
    # The table keeps a switch to its top 32 bits: draws 512 apart around it
    # are decided by the table, those sharing its top bits by the formula.
    offsets = (-1025, -513, -512, -511, -1, 0, 1, 511, 512, 513, 1024)
    low41 = [np.zeros(4096, dtype=np.int64), np.full(4096, 2**41 - 1), np.full(4096, 2**41 - 513),
             *(np.clip(switch + d, 0, 2**41 - 1) for d in offsets)]
    tops = np.concatenate([(k << 41) | x for x in low41]).astype(np.uint64)
    rng = np.random.default_rng(12)
    bits = np.concatenate([tops << np.uint64(11) | rng.integers(0, 2**11, tops.size).astype(np.uint64),
                           rng.integers(0, 2**63, 100_000, dtype=np.int64).astype(np.uint64) * np.uint64(2)])
    tabulated, formula, count = _engine.drawn_gaps(table, G_fs, bits)
    assert np.array_equal(tabulated, formula)
    # The table is used where G moves by at most one step across a bucket:
    # everywhere at these fractions for G up to ~3e5 fs/B, nowhere for 1e6
    # (~2 steps) and beyond.
    expected = {0: 4090, 1: 4090, 80: 4090, 41_135: 4090, 85_179: 4090, 292_826: 4090}.get(G_fs, 0)
    assert abs(count - expected) <= 6 if expected else count == 0
