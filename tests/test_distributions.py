"""Known answers for noise distributions, spec strings, sample files and quantile tables."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
from scipy import stats

from cloudnoise.errors import CloudnoiseError
from cloudnoise.model.distributions import (
    Empirical,
    Pareto,
    QuantileTable,
    check_bandwidth_noise,
    check_latency_noise,
    mixture_of,
    parse_distribution,
)

PROBS = np.array([0.001, 0.01, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99, 0.999])


def _table_sample(p: np.ndarray, v: np.ndarray, u: np.ndarray) -> np.ndarray:
    """What the engine does with a quantile table (the documented contract)."""
    return np.interp(u, p, v)


def test_empirical_sampling_reproduces_quantiles():
    rng = np.random.default_rng(1234)
    measured = rng.lognormal(7.0, 0.8, 200_000)
    dist = Empirical.from_samples(measured)
    np.testing.assert_allclose(dist.quantile(PROBS), np.quantile(measured, PROBS), rtol=1e-12)
    drawn = dist.sample(np.random.default_rng(42), 2_000_000)
    np.testing.assert_allclose(np.quantile(drawn, PROBS[1:-1]), np.quantile(measured, PROBS[1:-1]), rtol=0.01)
    assert drawn.min() >= measured.min() and drawn.max() <= measured.max()


def test_empirical_table_keeps_extremes():
    samples = np.concatenate([np.full(999_999, 100.0), [59e6]])  # one spike in a million
    p, v = Empirical.from_samples(samples).to_quantile_table()
    assert v[0] == 100.0 and v[-1] == 59e6


def test_lognormal_quantiles_match_scipy():
    dist = parse_distribution("lognormal:mu=6,sigma=0.8")
    ref = stats.lognorm(s=0.8, scale=np.exp(6.0))
    np.testing.assert_allclose(dist.quantile(PROBS), ref.ppf(PROBS), rtol=1e-12)
    assert dist.mean() == pytest.approx(ref.mean(), rel=1e-12)
    by_median = parse_distribution("lognormal:median=1us,sigma=0.5")
    assert by_median.quantile(np.array([0.5]))[0] == pytest.approx(1000.0)
    by_p99 = parse_distribution("lognormal:median=1us,p99=10us")
    np.testing.assert_allclose(by_p99.quantile(np.array([0.5, 0.99])), [1000.0, 10000.0], rtol=1e-10)


def test_pareto_quantiles_and_mean():
    dist = parse_distribution("pareto:scale=10us,alpha=2.5")
    ref = stats.pareto(b=2.5, scale=10_000.0)
    np.testing.assert_allclose(dist.quantile(PROBS), ref.ppf(PROBS), rtol=1e-12)
    assert dist.mean() == pytest.approx(10_000 * 2.5 / 1.5)
    assert dist.support() == (10_000.0, np.inf)


def test_truncated_pareto_closed_forms():
    d = Pareto(10.0, 2.0, 100.0)
    t = (10.0 / 100.0) ** 2
    assert d.cdf(np.array([5.0, 10.0, 20.0, 100.0, 200.0])).tolist() == pytest.approx(
        [0.0, 0.0, (1 - 0.25) / (1 - t), 1.0, 1.0])
    assert d.quantile(np.array([0.0, 1.0])).tolist() == pytest.approx([10.0, 100.0])
    assert d.mean() == pytest.approx(10 * 2 / 1 * (1 - 0.1) / (1 - t))  # = 20 x 0.9 / 0.99
    samples = d.quantile(np.linspace(0, 1, 200001)[1:-1])
    assert samples.mean() == pytest.approx(d.mean(), rel=2e-3)
    assert parse_distribution(d.spec()) == d
    assert Pareto(10.0, 1.0, 100.0).mean() == pytest.approx(10 * math.log(10) / 0.9)


def test_mixture_spike_probability_when_sampled():
    dist = parse_distribution("mixture:0.99*constant(value=1)+0.01*constant(value=1000)")
    x = dist.sample(np.random.default_rng(7), 1_000_000)
    frac = np.mean(x == 1000.0)
    assert abs(frac - 0.01) < 4 * np.sqrt(0.01 * 0.99 / 1e6)
    assert dist.mean() == pytest.approx(0.99 + 10.0)


def test_rare_spike_survives_the_quantile_table():
    dist = parse_distribution("mixture:0.99999*lognormal(median=1us,sigma=0.5)+0.00001*constant(value=59ms)")
    p, v = dist.to_quantile_table()
    # The probability mass the table gives to the spike is its weight, to within the jump's half-width.
    spike_mass = 1.0 - np.interp(59e6 * (1 - 1e-9), v, p)
    assert spike_mass == pytest.approx(1e-5, abs=1e-11)
    # Draw through the table as the engine would.
    u = np.random.default_rng(3).random(4_000_000)
    drawn = _table_sample(p, v, u)
    hits = np.count_nonzero(drawn >= 59e6 * 0.999)
    assert abs(hits - 40) < 4 * np.sqrt(40)
    # The body is untouched: the table's median is the lognormal's.
    assert np.interp(0.5, p, v) == pytest.approx(1000.0 * 1.0, rel=1e-3)


@pytest.mark.parametrize(
    "spec",
    [
        "constant:value=500ns",
        "uniform:low=0.5,high=1",
        "lognormal:median=800ns,sigma=0.7",
        "pareto:scale=10us,alpha=2.5",
        "mixture:0.999*lognormal(median=800ns,sigma=0.7)+0.001*constant(value=59ms)",
        "mixture:0.9999*uniform(low=0.9,high=1)+1e-4*uniform(low=0.3,high=0.6)",
    ],
)
def test_quantile_table_contract(spec):
    dist = parse_distribution(spec)
    p, v = dist.to_quantile_table()
    assert p.dtype == np.float64 and v.dtype == np.float64 and p.shape == v.shape
    assert p[0] == 0.0 and p[-1] == 1.0
    assert np.all(np.diff(p) > 0)
    assert np.all(np.diff(v) >= 0) and np.all(np.isfinite(v))
    for k in range(3, 8):  # the dense upper tail
        assert np.any(np.isclose(p, 1 - 10.0**-k, rtol=0, atol=1e-15))
    assert p.size >= 4097
    # The table's mean is close to the distribution's (tails truncated at 1 - 1e-9).
    assert QuantileTable(p, v).mean() == pytest.approx(dist.mean(), rel=1e-3)


def test_spec_round_trip():
    spec = "mixture:0.999*lognormal(median=800ns,sigma=0.7)+0.001*pareto(scale=20us,alpha=2)"
    dist = parse_distribution(spec)
    again = parse_distribution(dist.spec())
    np.testing.assert_allclose(again.quantile(PROBS), dist.quantile(PROBS), rtol=1e-9)


@pytest.mark.parametrize(
    "spec, words",
    [
        ("gauss:mu=1", "unknown distribution kind"),
        ("lognormal:median=1us", "lognormal takes exactly one of"),
        ("lognormal:mu=1us,sigma=1", "unitless"),
        ("constant:value=5parsecs", "unknown time unit"),
        ("constant:valu=5", "has no parameter"),
        ("pareto:scale=1,alpha=-2", "alpha > 0"),
        ("mixture:0.5*constant(value=1)+0.4*constant(value=2)", "sum to 1"),
        ("mixture:0.5*constant(value=1)+0.5*lognormal(mu=1,sigma=1", "parentheses"),
        ("mixture:0.5*constant(value=1)+half*constant(value=2)", "WEIGHT*KIND(PARAMS)"),
        ("uniform:low=2,high=1", "low < high"),
        ("/no/such/samples.txt", "no such samples file"),
        ("", "empty distribution spec"),
    ],
)
def test_bad_specs_give_one_line_errors(spec, words):
    with pytest.raises(CloudnoiseError) as err:
        parse_distribution(spec)
    assert words in str(err.value)
    assert "\n" not in str(err.value)


def test_samples_from_text_csv_and_parquet(tmp_path):
    values = np.array([5.0, 1.0, 3.0, 2.0, 4.0])
    text = tmp_path / "lat.txt"
    text.write_text("# latency excess, ns\n5\n1\n\n3  # third\n2\n4\n")
    csv = tmp_path / "lat.csv"
    pacsv.write_csv(pa.table({"run": [1, 2, 3, 4, 5], "excess_ns": values}), csv)
    parquet = tmp_path / "lat.parquet"
    pq.write_table(pa.table({"excess_ns": values}), parquet)
    for dist in (
        parse_distribution(str(text)),
        parse_distribution(f"empirical:file={csv},column=excess_ns"),
        parse_distribution("empirical:file=lat.parquet", base_dir=tmp_path),
    ):
        np.testing.assert_array_equal(dist.sorted_samples, np.sort(values))
    scaled = parse_distribution(f"empirical:file={text},scale=1000")
    assert scaled.support() == (1000.0, 5000.0)
    headerless = tmp_path / "plain.csv"
    headerless.write_text("1.5\n2.5\n")
    assert parse_distribution(str(headerless)).support() == (1.5, 2.5)


def test_bad_sample_line_is_named(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1\n2\nthree\n")
    with pytest.raises(CloudnoiseError, match=r"bad\.txt:3: 'three' is not a number"):
        parse_distribution(str(bad))


def test_support_checks():
    check_latency_noise(parse_distribution("lognormal:mu=1,sigma=1"))
    check_bandwidth_noise(parse_distribution("uniform:low=0.5,high=1"))
    with pytest.raises(CloudnoiseError, match=r"\(0, 1\]"):
        check_bandwidth_noise(parse_distribution("lognormal:mu=0,sigma=1"))
    with pytest.raises(CloudnoiseError, match="negative"):
        check_latency_noise(parse_distribution("uniform:low=-1,high=1"))


def test_values_with_time_units_are_nanoseconds():
    assert parse_distribution("constant:value=2.5us").mean() == 2500.0
    assert parse_distribution("constant:value=80ps").mean() == pytest.approx(0.08)
    assert parse_distribution("constant:value=59ms").mean() == 59e6
    assert parse_distribution("constant:value=7").mean() == 7.0
    assert parse_distribution("uniform:low=-1,high=1").support() == (-1.0, 1.0)


def test_bandwidth_samples_normalized_to_peak(tmp_path):
    path = tmp_path / "bw.csv"
    path.write_text("gbit_s\n90\n95\n97.5\n48.75\n")
    dist = check_bandwidth_noise(parse_distribution(f"empirical:file={path},column=gbit_s,normalize=max"))
    assert dist.support() == (0.5, 1.0)
    with pytest.raises(CloudnoiseError, match="normalize takes only"):
        parse_distribution(f"empirical:file={path},normalize=mean")


def test_empirical_spec_round_trip(tmp_path):
    path = tmp_path / "bw.csv"
    path.write_text("gbit_s\n90\n95\n97.5\n48.75\n")
    dist = parse_distribution(f"empirical:file={path},column=gbit_s,scale=2,normalize=max")
    again = parse_distribution(dist.spec())
    np.testing.assert_array_equal(again.sorted_samples, dist.sorted_samples)


def test_lognormal_quantile_and_cdf_are_scipys_bit_for_bit():
    """LogNormal computes ppf/cdf from scipy.special (half scipy.stats' memory); the numbers
    must be scipy.stats.lognorm's exactly, support edges and NaN included."""
    import math

    from scipy import stats

    from cloudnoise.model.distributions import LogNormal

    rng = np.random.default_rng(5)
    for _ in range(200):
        mu, sigma = rng.uniform(-5, 10), rng.uniform(0.01, 4)
        ours, ref = LogNormal(mu, sigma), stats.lognorm(s=sigma, scale=math.exp(mu))
        p = np.concatenate([rng.uniform(0, 1, 200), [0.0, 1.0, 1e-300, 0.5, 0.99]])
        assert np.array_equal(ours.quantile(p), ref.ppf(p))
        x = np.concatenate([np.exp(rng.uniform(-10, 15, 200)), [0.0, -1.0, np.inf, np.nan, math.exp(mu)]])
        assert np.array_equal(ours.cdf(x), ref.cdf(x), equal_nan=True)
    assert LogNormal(0.0, 1.0).cdf(1.0) == 0.5 and LogNormal(0.0, 1.0).quantile(0.5) == 1.0


def test_lognormal_models_do_not_load_scipy_stats():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from cloudnoise.model.distributions import LogNormal; "
            "d = LogNormal.from_median_p99(1.0, 5.0); d.quantile(np.linspace(0, 1, 5)); d.cdf(np.ones(3)); "
            "print('scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_overflowing_pareto_is_refused_without_a_warning(recwarn):
    """Found by bench/bench_hostile_inputs.py: pareto(scale=1e308) drew inf after a numpy
    RuntimeWarning on stderr; the refusal must be the only output."""
    with pytest.raises(CloudnoiseError, match="not a finite number"):
        check_latency_noise(parse_distribution("mixture:0.999*lognormal(median=1192,sigma=0.1)"
                                               "+0.001*pareto(scale=1e308,alpha=2)"), "test")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def test_pareto_quantile_and_cdf_are_scipys_bit_for_bit():
    """An untruncated Pareto computes ppf/cdf itself, as scipy.stats.pareto does them; the
    numbers must be scipy's exactly, support edges, overflow and NaN included."""
    from scipy import stats

    from cloudnoise.model.distributions import Pareto

    rng = np.random.default_rng(6)
    for _ in range(200):
        scale, alpha = float(np.exp(rng.uniform(-5, 20))), float(rng.uniform(0.05, 8))
        ours, ref = Pareto(scale, alpha), stats.pareto(b=alpha, scale=scale)
        p = np.concatenate([rng.uniform(0, 1, 200), [0.0, 1.0, 1e-300, 0.5, 0.99, 1 - 2**-53]])
        with np.errstate(over="ignore", divide="ignore"):
            assert np.array_equal(ours.quantile(p), ref.ppf(p))
        x = np.concatenate([scale * np.exp(rng.uniform(-1, 30, 200)), [0.0, -1.0, scale, np.inf, np.nan, 1e308]])
        with np.errstate(over="ignore"):  # scipy's own x / scale, at 1e308
            expected = ref.cdf(x)
        assert np.array_equal(ours.cdf(x), expected, equal_nan=True)
    assert Pareto(2.0, 1.0).quantile(0.5) == 4.0 and Pareto(2.0, 1.0).cdf(4.0) == 0.5
    assert Pareto(2.0, 1.0).quantile(1.0) == np.inf and Pareto(2.0, 1.0).cdf(np.inf) == 1.0


def test_simulating_a_profile_does_not_load_scipy_stats(tmp_path):
    # scipy.stats takes ~1.4 s to import, longer than a small simulation runs: a
    # profile whose latency has an untruncated Pareto tail (aws-hpc) and the summary
    # table's confidence intervals do without it.
    import subprocess
    import sys

    code = ("import sys; from cloudnoise.cli import main; sys.argv = ['cloudnoise', 'simulate', '--pattern', "
            "'dissemination', '--ranks', '16', '--size', '16B', '--profile', 'aws-hpc', '--reps', '5']\n"
            "try:\n    main()\nexcept SystemExit:\n    pass\n"
            "print('scipy.stats' in sys.modules, file=sys.stderr)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    assert out.stderr.strip().splitlines()[-1] == "False", out.stderr
    assert "Completion time" in out.stdout


def test_mixture_of_joins_a_mixture_part_flat():
    inner = parse_distribution("mixture:0.25*constant(value=2)+0.75*uniform(low=3,high=5)")
    m = mixture_of([(0.5, parse_distribution("constant:value=1")), (0.5, inner)])
    assert m.weights == (0.5, 0.125, 0.375)
    assert [c.spec() for c in m.components] == ["constant:value=1", "constant:value=2", "uniform:low=3,high=5"]
    assert m.mean() == pytest.approx(0.5 * 1 + 0.125 * 2 + 0.375 * 4)
    # the mixture checks its weights as given: parts that do not sum to 1 are refused
    with pytest.raises(CloudnoiseError, match="sum to 1"):
        mixture_of([(0.5, inner), (0.4, inner)])
