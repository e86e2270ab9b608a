"""`cloudnoise report`: the page, its figures (PNG + PDF), observations with
known answers, error messages, and rendering in a real headless browser."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import matplotlib
import matplotlib.colors
import numpy as np
import pytest

from cloudnoise.costs.model import parse_pricing
from cloudnoise.report.costs import cost_rows, increase_samples
from cloudnoise.report.data import SweepData, load_campaign, load_sweep
from cloudnoise.report.figures.boxes import box_stats
from cloudnoise.report import measured
from cloudnoise.report.observations import (
    campaign_facts,
    cheapest_per_scale,
    communication_share,
    format_ratio,
    median_slowdowns,
    os_noise_negligible,
)

from measure_support import env, mpi_or_skip
from report_support import write_known_campaign, write_simulated_sweep, write_sweep

CAMPAIGN_FIGURES = {"latency-bandwidth-vs-size", "latency-noise", "bandwidth-noise", "os-detours"}
SWEEP_FIGURES = {"scalability-dissemination-16b", "cost-increase-dissemination-16b", "front-dissemination-16b"}
HOUR_NS = 3600e9
Runner = Callable[..., subprocess.CompletedProcess[str]]


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """`cloudnoise report ARGS` in a fresh process (what a user runs)."""
    return subprocess.run([sys.executable, "-m", "cloudnoise", "report", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env())


@pytest.fixture
def run_report(capsys: pytest.CaptureFixture[str]) -> Runner:
    """`cloudnoise report ARGS` in this process (fast: no interpreter start), through the
    same entry point, so errors are turned into one line exactly as for users."""
    from cloudnoise.cli import main

    def run(*args: object) -> subprocess.CompletedProcess[str]:
        capsys.readouterr()
        try:
            main(["report", *map(str, args)])
            code = 0
        except SystemExit as exit_:
            code = int(exit_.code or 0)
        out = capsys.readouterr()
        return subprocess.CompletedProcess(["report", *map(str, args)], code, out.out, out.err)

    return run


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("report-inputs")
    campaign = write_known_campaign(root / "campaign")
    sweep = write_simulated_sweep(root / "sweep", ["aws-hpc", "daint"], [4, 16], reps=40)
    return {"campaign": campaign, "sweep": sweep}


@pytest.fixture(scope="module")
def report(inputs: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("report-out") / "out"
    proc = cli("--campaign", inputs["campaign"], "--sweep", inputs["sweep"], "-o", out, "--json",
               "--title", "Test report")
    assert proc.returncode == 0, proc.stderr
    return out, json.loads(proc.stdout)


# --- the page and its files ------------------------------------------------------------------


def test_report_files_and_figures(report: tuple[Path, dict]) -> None:
    out, doc = report
    html_path = Path(doc["report"])
    assert html_path == out / "report.html" and html_path.is_file()
    assert set(doc["figures"]) == CAMPAIGN_FIGURES | SWEEP_FIGURES
    for name, files in doc["figures"].items():
        png, pdf = Path(files["png"]), Path(files["pdf"])
        assert png == out / "figures" / f"{name}.png" and pdf == out / "figures" / f"{name}.pdf"
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", name
        assert pdf.read_bytes()[:5] == b"%PDF-" and pdf.read_bytes().rstrip().endswith(b"%%EOF"), name
    html = html_path.read_text()
    assert "<title>Test report</title>" in html
    assert html.count("data:image/png;base64,") == len(doc["figures"])
    # self-contained: nothing fetched from elsewhere
    text = re.sub(r"data:image/png;base64,[A-Za-z0-9+/=]+", "data:", html)
    assert not re.search(r"https?:|ftp:|//[a-z0-9]|url\(|@import", text, re.I)
    assert not re.search(r"<(link|script|iframe|object|embed)\b", text, re.I)
    assert all(v == "data:" for v in re.findall(r'\bsrc="([^"]*)"', text))
    assert all(v.startswith("#") or v.startswith("figures/") for v in re.findall(r'\bhref="([^"]*)"', text))
    for heading in ("Observations", "Latency and bandwidth (Table II)", "Measured noise",
                    "Scalability: dissemination:16B", "Cost: dissemination:16B"):
        assert heading in html
    # the Table II rows: measured here (marked) and published ones (daint's same-rack figures)
    assert re.search(r'<tr class="measured"><td class="text">synthetic \(one host, shared memory\)</td>'
                     r'<td class="text">measured here \(latency from [a-z-]+', html)
    assert '<td class="text">daint</td><td class="text">published</td>' in html and "<td>1.19</td><td>2.39</td>" in html


def test_report_observations_from_known_campaign(report: tuple[Path, dict]) -> None:
    _, doc = report
    by_kind = {o["kind"]: o for o in doc["observations"] if "campaign" in o["values"]}
    assert by_kind["latency_tail"]["values"]["p999_over_min"] == pytest.approx(4.0)
    assert "4.0x the minimum (1 µs)" in by_kind["latency_tail"]["text"]
    assert by_kind["bandwidth_tail"]["values"]["p01_over_max"] == pytest.approx(0.5)
    assert "below 50% of the maximum" in by_kind["bandwidth_tail"]["text"]
    assert by_kind["os_noise"]["values"]["detours_per_s"] == pytest.approx(500.0)
    kinds = [o["kind"] for o in doc["observations"]]
    assert "median_slowdown" in kinds and "cheapest" in kinds


def test_plain_output_names_the_report(tmp_path: Path, run_report: Runner) -> None:
    proc = run_report("--profile", "daint", "-o", tmp_path / "r")
    assert proc.returncode == 0, proc.stderr
    assert f"report: {tmp_path / 'r' / 'report.html'}" in proc.stdout


def test_absent_sections_are_left_out(tmp_path: Path, run_report: Runner) -> None:
    proc = run_report("--profile", "daint,aws-hpc", "-o", tmp_path / "r", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["figures"] == {} and doc["observations"] == []
    html = Path(doc["report"]).read_text()
    assert "Table II" in html
    for absent in ("<h2>Scalability", "<h2>Measured noise", "<h2>Observations", "<figure"):
        assert absent not in html


def test_incomplete_sweep_from_parts(tmp_path: Path, run_report: Runner) -> None:
    runtimes = {("daint", 4, "none"): [100.0] * 5, ("daint", 4, "network"): [200.0] * 5}
    sweep = write_sweep(tmp_path / "s", runtimes, complete=False, as_parts=True)
    data = load_sweep(sweep)
    assert not data.complete and data.get("daint", 4, "network").tolist() == [200.0] * 5
    proc = run_report("--sweep", sweep, "-o", tmp_path / "r", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["figures"]) == {"scalability-test", "cost-increase-test", "front-test"}
    assert "incomplete" in Path(doc["report"]).read_text()


# --- measured views and statistics with known answers ------------------------------------------


def test_noise_views_select_the_known_tails(inputs: dict[str, Path]) -> None:
    c = load_campaign(inputs["campaign"])
    lat = measured.latency_noise(c)
    assert lat is not None and lat.total_samples == 10_000 and lat.base == pytest.approx(1.0)
    assert lat.values.size == 20 and np.allclose(lat.values, 4.0)
    bw = measured.bandwidth_noise(c)
    assert bw is not None and bw.size_bytes == 65536 and bw.base == pytest.approx(65536 * 8 / 5000)
    assert bw.values.size == 20 and np.allclose(bw.values, 0.5)
    osn = measured.os_detours(c)
    assert osn is not None and osn.values.size == 10 and np.allclose(osn.values, 50.0)
    assert np.allclose(np.diff(osn.t_s), 0.2)  # every 100th detour, 2 ms apart
    curve = measured.size_curve(c)
    assert curve is not None and curve.size_bytes.tolist() == [1, 1024, 65536]
    assert curve.min_us[0] == pytest.approx(1.0)


def test_noise_panels_are_capped_for_long_runs_and_say_so(inputs: dict[str, Path], monkeypatch) -> None:
    """0.1% of a day of samples is 31 M points: past MAX_POINTS a panel shows the extreme
    MAX_POINTS samples (ties at the cut included) and its title names the share shown."""
    from cloudnoise.report.figures.network import shown

    c = load_campaign(inputs["campaign"])
    assert shown("top", measured.latency_noise(c)) == "top 0.1%"
    monkeypatch.setattr(measured, "MAX_POINTS", 5)  # of 10,000 samples: 0.05%
    lat, bw = measured.latency_noise(c), measured.bandwidth_noise(c)
    assert lat.shown_percent == pytest.approx(0.05) and shown("top", lat) == "top 0.05%"
    assert bw.shown_percent == pytest.approx(0.05) and shown("bottom", bw) == "bottom 0.05%"
    assert np.allclose(lat.values, 4.0) and np.allclose(bw.values, 0.5)  # still only the tail


def test_boxes_use_the_same_statistics_as_matplotlib() -> None:
    from matplotlib import cbook

    x = np.random.default_rng(3).lognormal(0, 1, 501)
    ours = box_stats(x)
    ref = cbook.boxplot_stats(x, whis=1.5)[0]
    for key in ("med", "q1", "q3", "mean", "whislo", "whishi"):
        assert ours[key] == pytest.approx(ref[key]), key
    assert np.array_equal(np.sort(ours["fliers"]), np.sort(ref["fliers"]))
    # the notch: the median's distribution-free interval, the 229th and 273rd of 501
    # (binomial(501, 1/2): 2 P(B <= 228) = 4.9 % <= 5 % < 2 P(B <= 229) = 6.0 %), as
    # scipy.stats.quantile_test gives it; not matplotlib's McGill notch
    assert (ours["cilo"], ours["cihi"]) == (np.sort(x)[228], np.sort(x)[272])


def test_a_notch_wider_than_its_box_is_drawn_at_the_box_edges() -> None:
    # five values: below six, the median's interval is the samples' range, wider than the box
    ours = box_stats(np.array([1.0, 2.0, 3.0, 4.0, 5.0]))
    assert (ours["q1"], ours["med"], ours["q3"]) == (2.0, 3.0, 4.0)
    assert ours["cilo"] == 2.0 and ours["cihi"] == 4.0  # [1, 5] clipped to [2, 4]


def test_far_outliers_and_the_means_they_lift_do_not_squash_the_boxes() -> None:
    from cloudnoise.report.figures.base import panel_grid
    from cloudnoise.report.figures.boxes import clip_outliers, grouped_boxes

    fig, (ax,) = panel_grid(1)
    values = np.r_[np.linspace(1.0, 2.0, 99), 1e6]  # Oracle-like: one 165 ms run among 1 ms ones
    drawn = grouped_boxes(ax, [4], ["network"], lambda n, v: values)
    note = clip_outliers(ax, drawn, " ms")
    assert ax.get_ylim()[1] < 3.0  # sized by the box and whiskers (top whisker 2.0), not by the mean (~10,000)
    assert note == "1 outlier above the axis, up to 1,000,000 ms; 1 mean above the axis, up to 10,001 ms"  # (99 x 1.5 + 1e6) / 100


def test_scalability_figure_one_unit_noiseless_bar_linear_or_log() -> None:
    from cloudnoise.report.figures.base import VARIANT_COLORS
    from cloudnoise.report.figures.scalability import scalability_figure

    rng = np.random.default_rng(1)
    sweep = SweepData(Path("x"), {}, {
        ("a", 4, "none"): np.full(50, 2_000.0),                 # 2 us, every repetition the same
        ("a", 4, "os"): 2_000.0 + rng.exponential(500.0, 50),
        ("b", 4, "none"): np.full(50, 3_000_000.0),             # 3 ms
        ("b", 4, "os"): 3_000_000.0 + rng.exponential(1e5, 50),
    })
    fig = scalability_figure(sweep)
    labels = [ax.get_ylabel() for ax in fig.axes if ax.get_visible()]
    assert labels == ["Runtime (ms)", "Runtime (ms)"]  # one unit for the figure
    a = fig.axes[0]
    assert a.get_yscale() == "linear" and a.get_ylim()[0] <= 0.0
    bars = [c for c in a.collections if np.allclose(c.get_colors()[0][:3], matplotlib.colors.to_rgb(VARIANT_COLORS["none"]))]
    assert bars and np.allclose(bars[0].get_segments()[0][:, 1], 0.002)  # the noiseless box as a bar at 2 us
    log = scalability_figure(sweep, log_y=True)
    assert log.axes[0].get_yscale() == "log" and log.axes[0].get_ylabel() == "Runtime (ms, log scale)"


def test_cost_increase_and_cost_per_run() -> None:
    sweep = SweepData(Path("x"), {}, {
        ("daint", 2, "none"): np.full(3, HOUR_NS),
        ("daint", 2, "os"): np.array([HOUR_NS, 1.5 * HOUR_NS, 2 * HOUR_NS]),
    })
    assert increase_samples(sweep, "daint", 2, "os").tolist() == pytest.approx([0.0, 0.5, 1.0])
    rows = {r.variant: r for r in cost_rows(sweep, parse_pricing("on-demand"))}
    assert rows["none"].cost_usd == pytest.approx(2 * 1.73)  # 1 h x 2 nodes x 1.73 USD
    assert rows["os"].cost_usd == pytest.approx(1.5 * 2 * 1.73) and rows["os"].increase == pytest.approx(0.5)
    # a system no profile describes: no cost, but the increase due to noise is still known
    unknown = SweepData(Path("x"), {}, {("my-cluster", 2, "none"): np.full(3, 100.0),
                                        ("my-cluster", 2, "network"): np.full(3, 250.0)})
    rows = {r.variant: r for r in cost_rows(unknown, parse_pricing("on-demand"))}
    assert rows["network"].cost_usd is None and rows["network"].increase == pytest.approx(1.5)


# --- observations: constructed tables with known answers -----------------------------------------


def _sweep(runtimes: dict[tuple[str, int, str], list[float]]) -> SweepData:
    meta = {"experiment": {"name": "t", "spec": "dissemination:16B"}, "systems": sorted({k[0] for k in runtimes})}
    return SweepData(Path("t"), meta, {k: np.asarray(v, dtype=float) for k, v in runtimes.items()})


def test_network_doubling_the_median_reads_2x() -> None:
    sweep = _sweep({
        ("sysA", 4, "none"): [100, 100, 100], ("sysA", 4, "network"): [150, 150, 150],
        ("sysA", 16, "none"): [100, 110, 120], ("sysA", 16, "network"): [200, 220, 240],
        ("sysB", 16, "none"): [100, 100, 100], ("sysB", 16, "network"): [130, 190, 120],
    })
    (obs,) = median_slowdowns(sweep)
    assert obs.values == {"variant": "network", "ratio": pytest.approx(2.0), "system": "sysA", "nodes": 16,
                          "median_ns": 220.0, "noiseless_median_ns": 110.0}
    assert ("network noise raises the median runtime 2.0x at 16 nodes on sysA (median 220 ns against 110 ns "
            "without noise; the largest slowdown simulated)") in obs.text


def test_os_noise_negligible_only_where_it_is() -> None:
    sweep = _sweep({
        ("quiet", 4, "none"): [100] * 3, ("quiet", 4, "os"): [103] * 3,
        ("quiet", 64, "none"): [200] * 3, ("quiet", 64, "os"): [196] * 3,
        ("noisy", 4, "none"): [100] * 3, ("noisy", 4, "os"): [101] * 3,
        ("noisy", 64, "none"): [200] * 3, ("noisy", 64, "os"): [260] * 3,
    })
    (obs,) = os_noise_negligible(sweep)
    assert obs.values["systems"] == ["quiet"] and obs.values["max_nodes"] == 64
    assert "(up to 64 nodes; at most 1.03x)" in obs.text
    slow = {o.values["variant"]: o.values for o in median_slowdowns(sweep)}
    assert slow["os"]["system"] == "noisy" and slow["os"]["ratio"] == pytest.approx(1.3)


def test_a_slowdown_within_the_tolerance_agrees_with_os_noise_negligible() -> None:
    """The two sentences about OS noise never contradict: if no median moves by 5%,
    the slowdown sentence says so instead of 'raises ... (the largest slowdown)'."""
    sweep = _sweep({
        ("quiet", 4, "none"): [100] * 3, ("quiet", 4, "os"): [103] * 3,
        ("quiet", 64, "none"): [200] * 3, ("quiet", 64, "os"): [196] * 3,
    })
    (negligible,) = os_noise_negligible(sweep)
    (slow,) = median_slowdowns(sweep)
    assert negligible.values["systems"] == ["quiet"] and negligible.values["max_ratio"] == pytest.approx(1.03)
    assert "raises" not in slow.text
    assert ("OS noise moves the median runtime by less than 5% at every scale simulated (at most 1.03x: median "
            "103 ns against 100 ns without noise at 4 nodes on quiet)") in slow.text


def test_cheapest_system_per_scale() -> None:
    # one hour on 2 nodes: daint 2 x 1.73 USD, aws-hpc 2 x 3.88 USD (on-demand, Table I)
    sweep = _sweep({
        ("daint", 2, "none"): [HOUR_NS], ("daint", 2, "both"): [HOUR_NS],
        ("aws-hpc", 2, "none"): [HOUR_NS], ("aws-hpc", 2, "both"): [HOUR_NS],
        ("alps", 2, "both"): [0.1 * HOUR_NS],  # no published price: never the cheapest
    })
    (obs,) = cheapest_per_scale(sweep, parse_pricing("on-demand"))
    assert obs.values["system"] == "daint" and obs.values["cost_usd"] == pytest.approx(3.46)
    assert obs.values["most_expensive"] == "aws-hpc" and obs.values["factor"] == pytest.approx(3.88 / 1.73)
    assert "at 2 nodes the cheapest system is daint (3.46 USD per run" in obs.text
    # with a fixed price for everyone, alps (10x faster) wins
    (fixed,) = cheapest_per_scale(sweep, parse_pricing("2USD"))
    assert fixed.values["system"] == "alps" and fixed.values["cost_usd"] == pytest.approx(0.4)


def test_same_cheapest_everywhere_is_one_sentence() -> None:
    runtimes: dict[tuple[str, int, str], list[float]] = {}
    for nodes in (2, 4):
        runtimes[("daint", nodes, "none")] = [HOUR_NS]
        runtimes[("aws-hpc", nodes, "none")] = [HOUR_NS]
    (obs,) = cheapest_per_scale(_sweep(runtimes), parse_pricing("on-demand"))
    assert obs.values["system"] == "daint" and obs.values["nodes"] == [2, 4]
    assert obs.values["cost_usd"] == pytest.approx([3.46, 6.92])
    assert ("daint is the cheapest system at every scale compared (2–4 nodes, on-demand, billed as each provider "
            "bills, without noise)") in obs.text
    # the same ratio at every scale (3.88 / 1.73) is said once; different ratios as a range
    assert obs.text.endswith("the most expensive costs 2.2x as much at every scale.")
    runtimes[("aws-hpc", 4, "none")] = [2 * HOUR_NS]
    (obs,) = cheapest_per_scale(_sweep(runtimes), parse_pricing("on-demand"))
    assert obs.text.endswith("the most expensive costs 2.2x to 4.5x as much.")


def test_the_report_and_advise_name_the_same_cheapest_system() -> None:
    """One default: the report's cheapest system is the cheapest point of `advise` on the
    same runs. A 7 us run on azure-hpc (3.168 USD/node-hour, billed at least 5 minutes)
    against 20 us on daint (1.73, billed by the second): daint, as billed; azure-hpc pro rata,
    which each says when asked for it."""
    from cloudnoise.advice.api import advice_from_runtimes, quotes_for
    from cloudnoise.costs.billing import EXACT
    from cloudnoise.costs.price_book import PriceBook
    from cloudnoise.report.costs import advice_points_of
    from cloudnoise.sweep.request import system_from

    runtimes = {("azure-hpc", 16, v): [7000.0] * 3 for v in ("none", "both")}
    runtimes |= {("daint", 16, v): [20000.0] * 3 for v in ("none", "both")}
    sweep = _sweep(runtimes)
    systems = (system_from("azure-hpc"), system_from("daint"))
    for billing, expected, rule in ((None, "daint", "billed as each provider bills"), (EXACT, "azure-hpc", "billed pro rata")):
        (obs,) = cheapest_per_scale(sweep, parse_pricing("on-demand"), billing)
        points, _ = advice_from_runtimes(sweep.runtimes_ns, quotes_for(systems, PriceBook(parse_pricing("on-demand"),
                                                                                           billing=billing)))
        cheapest_point = min(points, key=lambda p: p.p50_cost)
        assert obs.values["system"] == cheapest_point.system == expected, (billing, obs.text)
        assert rule in obs.text
        front = advice_points_of(sweep, parse_pricing("on-demand"), billing)  # the report's Pareto figure
        assert min(front, key=lambda p: p.p50_cost).system == expected


@pytest.mark.parametrize(("usd", "said"), [
    (1e-7, "(0.1 USD per million runs, on-demand, billed pro rata, without noise); aws-hpc costs"),
    (1e5, "(100,000 USD per run, on-demand, billed pro rata, without noise); aws-hpc costs"),
])
def test_a_cost_sentence_has_no_run_of_zeros(usd: float, said: str) -> None:
    """"0.0000001027 to 0.0000241 USD per run" reads badly; a tenth of a microdollar
    is told per million runs, a hundred thousand dollars in groups."""
    from cloudnoise.costs.billing import EXACT

    runtime = usd / (2 * 1.73) * HOUR_NS  # daint: 2 nodes at 1.73 USD/node-hour
    sweep = _sweep({("daint", 2, "none"): [runtime], ("aws-hpc", 2, "none"): [runtime]})
    (obs,) = cheapest_per_scale(sweep, parse_pricing("on-demand"), EXACT)
    assert obs.values["cost_usd"] == pytest.approx(usd)
    assert said in obs.text and re.search(r"0{4,}|e-0", obs.text) is None, obs.text


def test_communication_share_of_an_application() -> None:
    sweep = _sweep({("a", 4, "none"): [100, 100, 100], ("a", 64, "none"): [200, 200, 200],
                    ("a", 64, "network"): [400, 400, 400]})
    sweep.communication_ns = {("a", 4, "none"): np.array([10.0, 10, 10]), ("a", 64, "none"): np.array([180.0] * 3),
                              ("a", 64, "network"): np.array([380.0] * 3)}
    (obs,) = communication_share(sweep)
    assert obs.values["min"] == pytest.approx(0.1) and obs.values["max"] == pytest.approx(0.9)
    assert "communication is 10% of the median runtime (a, 4 nodes) to 90% (a, 64 nodes)" in obs.text


def test_repeated_repetitions_count_once(tmp_path: Path) -> None:
    """A repetition saved in two parts (a task re-run after an interruption) counts once."""
    import pyarrow.parquet as pq

    sweep = write_sweep(tmp_path / "s", {("a", 4, "none"): [30.0, 40.0], ("b", 4, "none"): [50.0, 10.0]},
                        complete=False, as_parts=True)
    again = pq.read_table(sweep / "parts" / "part-0000.parquet")
    pq.write_table(again, sweep / "parts" / "part-0002.parquet")
    got = load_sweep(sweep).runtimes_ns
    assert {k: v.tolist() for k, v in got.items()} == {("a", 4, "none"): [30.0, 40.0], ("b", 4, "none"): [50.0, 10.0]}


def test_campaign_facts_and_ratio_format() -> None:
    t2 = {"min_latency_us": 0.5, "latency_normalized": {"p99.9": 3.94, "max": 1790.9},
          "max_bandwidth_gbps": 200.0, "bandwidth_normalized": {"p0.1": 0.18, "min": 0.001}}
    row = {"detours": 10, "noise_fraction": 0.0111, "detours_per_s": 787.4, "max_detour_us": 234.4}
    texts = [o.text for o in campaign_facts("c", t2, row)]
    assert texts == [
        "On c, the 99.9th-percentile latency is 3.9x the minimum (0.5 µs); the largest sample is 1,791x.",
        "On c, 0.1% of bandwidth samples fall below 18% of the maximum (200 Gb/s); the lowest is 0.1%.",
        "On c, OS detours take 1.11% of the time: 787 per second, the longest 234 µs.",
    ]
    assert campaign_facts("c", {}, None) == []
    assert [format_ratio(r) for r in (2.0, 2.06, 1.04, 1.0, 150.2)] == ["2.0x", "2.1x", "1.04x", "1.00x", "150x"]


# --- errors: one line, no traceback ------------------------------------------------------------


def _one_line_error(proc: subprocess.CompletedProcess[str], needle: str) -> None:
    """Exit status 2 and one line on stderr naming the problem."""
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("cloudnoise: error: ") and needle in lines[0], proc.stderr


def test_errors(tmp_path: Path, inputs: dict[str, Path], run_report: Runner) -> None:
    _one_line_error(cli("-o", tmp_path / "r"), "nothing to report")  # once in a fresh process too
    _one_line_error(cli("-o", tmp_path / "r"), "nothing to report")  # once in a fresh process too
    _one_line_error(run_report("-o", tmp_path / "r"), "nothing to report")
    _one_line_error(run_report("--campaign", tmp_path / "missing", "-o", tmp_path / "r"), "no such campaign directory")
    (tmp_path / "empty").mkdir()
    _one_line_error(run_report("--campaign", tmp_path / "empty", "-o", tmp_path / "r"), "not a measurement campaign")
    _one_line_error(run_report("--sweep", tmp_path / "empty", "-o", tmp_path / "r"), "not a sweep")
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "sweep.json").write_text('{"format": "other/9"}')
    _one_line_error(run_report("--sweep", tmp_path / "bad", "-o", tmp_path / "r"), "unknown format")
    (tmp_path / "file").write_text("x")
    _one_line_error(run_report("--campaign", inputs["campaign"], "-o", tmp_path / "file" / "r"), "cannot write the report")
    _one_line_error(run_report("--profile", "daint", "--pricing", "cheap", "-o", tmp_path / "r"), "--pricing cheap")
    _one_line_error(run_report("--profile", "dain", "-o", tmp_path / "r"), "did you mean 'daint'")


# --- a real browser ------------------------------------------------------------------------------


def _browser() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable"):
        if path := shutil.which(name):
            return path
    return None


def test_renders_in_headless_chromium(report: tuple[Path, dict], tmp_path: Path) -> None:
    browser = _browser()
    if browser is None:
        pytest.skip("no chromium, chromium-browser or google-chrome binary on PATH")
    out, doc = report
    shot = tmp_path / "page.png"
    cmd = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}", "--window-size=1400,3000",
           Path(doc["report"]).resolve().as_uri()]
    try:
        subprocess.run(cmd, capture_output=True, timeout=90, cwd=tmp_path)
    except subprocess.TimeoutExpired:
        pytest.fail("headless chromium did not finish within 90 s")
    assert shot.is_file() and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    import matplotlib.image as mpimg

    img = mpimg.imread(shot)
    assert img.shape[0] == 3000 and img.shape[1] == 1400
    pixels = img[..., :3].reshape(-1, 3)
    colours = np.unique((pixels[::37] * 255).astype(np.uint8), axis=0)
    assert len(colours) > 50, "the screenshot is (nearly) one colour: the page did not render"
    assert pixels.std(axis=0).max() > 0.05


# --- a real measurement, when MPI is there ------------------------------------------------------


def test_report_of_a_real_measurement(tmp_path: Path) -> None:
    mpi_or_skip()
    camp = tmp_path / "camp"
    for args in (("latency", "--ranks", "2", "--sizes", "1,65536", "--iterations", "200"),
                 ("latency-noise", "--duration", "0.5"),
                 ("os-noise", "--duration", "0.5")):
        proc = subprocess.run([sys.executable, "-m", "cloudnoise", "measure", *args, "--out", str(camp)],
                              capture_output=True, text=True, timeout=120, env=env())
        assert proc.returncode == 0, proc.stderr
    proc = cli("--campaign", camp, "--profile", "daint", "-o", tmp_path / "r", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert set(doc["figures"]) == {"latency-bandwidth-vs-size", "latency-noise", "os-detours"}
    assert {"latency_tail", "os_noise"} <= {o["kind"] for o in doc["observations"]}
