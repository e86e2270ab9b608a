"""`cloudnoise paper`: the statements' machinery (plan, measures, check,
resume, table, JSON), tested against known answers: LogGP's closed form for
a noiseless dissemination, Table I's prices, hand-made runtimes; and the
held-out statements kept out of the calibration."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

from cloudnoise.cli import cli
from cloudnoise.paper.reproduce import Grid, plan, reproduce, to_json
from cloudnoise.paper.statements import HELD_OUT, SEC_V
from cloudnoise.paper.table import rows, to_csv
from cloudnoise.paper import statements as T
from cloudnoise.paper.measures import Config, CostRatio, Count, Increase, Ratio, Stat, noise_ratio, over, statistic
from cloudnoise.paper.statements import Statement, check
from cloudnoise.profiles.registry import load_builtin


def _dissemination_ns(system: str, nodes: int, size: int = 16) -> float:
    """LogGP: ceil(log2 P) rounds; a round's send waits for the last round's
    receive (o + L + (s-1) G + o) and for the NIC's gap (g + (s-1) G), and
    the last round ends at its receive."""
    lg = load_builtin(system).loggops
    rounds = math.ceil(math.log2(nodes))
    message = 2 * lg.o + lg.L + (size - 1) * lg.G
    return (rounds - 1) * max(message, lg.g + (size - 1) * lg.G) + message


class FakeRuns:
    """Runs with hand-made runtimes."""

    def __init__(self, table: dict[Config, list[float]], compute: dict[tuple[str, str], float] | None = None):
        self.table = {k: np.asarray(v, dtype=float) for k, v in table.items()}
        self.compute = compute or {}

    def runtimes(self, config: Config) -> np.ndarray:
        return self.table[config]

    def compute_ns(self, workload: str, system: str) -> float:
        return self.compute.get((workload, system), 0.0)

    def price(self, system: str) -> float | None:
        return load_builtin(system).prices.on_demand_per_node_hour


def _st(id: str, measure, low, high, unit="x", scale=1.0, role="held-out") -> Statement:
    return Statement(id, "Fig. X", "test", "a sentence", role, measure, "paper", low, high, unit, scale, "reading")


def test_statistics_and_measures_on_known_runtimes():
    c = lambda v, s="aws-hpc-metal", n=16: Config("fig14", s, n, v)  # noqa: E731
    runs = FakeRuns({
        c("none"): [100.0], c("network"): [100.0, 150.0, 200.0, 250.0, 1000.0],
        c("none", "daint"): [40.0], c("network", "daint"): [60.0, 60.0, 60.0],
    })
    assert statistic(runs.table[c("network")], "median") == 200.0
    assert statistic(runs.table[c("network")], "mean") == 340.0
    assert statistic(runs.table[c("network")], "max") == 1000.0
    assert statistic(runs.table[c("network")], "p99.5") == pytest.approx(250 + 0.98 * 750)
    # +100% on AWS, +50% on Daint: an increase in % of the median
    o = check(_st("a", Increase(noise_ratio("fig14", "aws-hpc-metal", 16, "network")), 50.0, 150.0, "%", 100.0), runs)
    assert o.value == pytest.approx(100.0) and o.agrees
    # the smallest of the two names its system
    m = Increase(over(("aws-hpc-metal", "daint"), lambda s: noise_ratio("fig14", s, 16, "network"), largest=False))
    o = check(_st("b", m, 60.0, None, "%", 100.0), runs, {"b": "the cause"})
    assert o.value == pytest.approx(50.0) and not o.agrees and o.detail == "smallest: daint" and o.cause == "the cause"
    # how many in [1.4, 1.6]: Daint only
    cnt = Count(tuple((s, noise_ratio("fig14", s, 16, "network")) for s in ("aws-hpc-metal", "daint")), 1.4, 1.6)
    assert check(_st("c", cnt, 1.0, None, "count"), runs).value == 1.0
    # cost = median x nodes x on-demand price (Table I: Daint 1.73, AWS 3.88 USD/h)
    cost = CostRatio("fig14", ("daint",), ("aws-hpc-metal",), (16,), variant="network")
    assert check(_st("d", cost, None, 1.0), runs).value == pytest.approx(60 * 1.73 / (200 * 3.88))
    d = check(_st("e", cost, None, 1.0), runs).to_dict()
    assert d["ours"] == pytest.approx(60 * 1.73 / (200 * 3.88)) and d["agrees"] is True and d["role"] == "held-out"


def test_plan_simulates_only_what_the_statements_need():
    s1 = _st("p1", Ratio(Stat("fig14", "daint", 64, "os"), Stat("fig14", "daint", 64, "none")), 1, 2)
    s2 = _st("p2", noise_ratio("fig14", "alps", 64, "os"), 1, 2)
    s3 = _st("p3", Stat("fig15", "alps", 4, "network"), 1, 2)
    grids = plan([s1, s2, s3])
    assert grids == [Grid("fig14", 64, ("daint", "alps"), ("none", "os")), Grid("fig15", 4, ("alps",), ("network",))]


def test_held_out_statements_are_not_calibration_targets():
    """The held-out rows (Sec. V-C but Fig. 14/Obs. 9, all of Sec. V-D but the two
    shares) are not among the calibration's targets, and none of the calibration's
    simulated targets reads Fig. 15/16/17 runtimes other than Obs. 9 and the shares."""
    target_ids = {s.id for s in T.TARGETS}
    assert not target_ids & {s.id for s in HELD_OUT}
    assert {s.role for s in HELD_OUT} == {"held-out"} and {s.role for s in T.TARGETS} == {"calibration"}
    for s in T.TARGETS:
        for c in s.needs():
            if c.workload == "fig15":
                assert s.id.startswith("obs9"), s.id
                assert c.nodes == 4
            if c.workload in ("fig16", "fig17"):
                assert s.id in ("fig16-communication-over-90", "fig17-communication-under-20"), s.id
                assert c.variant == "none"
    figures = {s.figure for s in HELD_OUT}
    assert figures == {"Fig. 15", "Fig. 16", "Fig. 17", "Obs. 10"}
    assert len({s.id for s in SEC_V}) == len(SEC_V)


def test_reproduce_known_answers_resume_and_extend(tmp_path):
    """Noiseless runs equal LogGP's closed form; a rerun simulates nothing;
    a larger --reps simulates only the new repetitions."""
    none16 = Stat("fig14", "aws-hpc-metal", 16, "none")
    ratio = Ratio(Stat("fig14", "aws-hpc-metal", 64, "none"), none16)  # 6 rounds / 4 rounds
    noisy = Ratio(Stat("fig14", "aws-hpc-metal", 16, "network", "max"), none16)
    cheaper = CostRatio("fig14", ("daint",), ("aws-hpc-metal",), (16,), variant="none")
    statements = [
        _st("k-time", none16, 100.0, 120.0, "us", 1e-3),  # the authors' L = 28 us, o = g = 0: 112.01 us
        _st("k-ratio", ratio, 1.6, 2.0),
        _st("k-noise", noisy, 1.0, None),
        _st("k-cost", cheaper, None, 1.0),
    ]
    run = reproduce(statements, tmp_path, reps=4, seed=3, in_process=True)
    by = {o.statement.id: o for o in run.outcomes}
    assert by["k-time"].value == pytest.approx(_dissemination_ns("aws-hpc-metal", 16) * 1e-3, rel=1e-9)
    assert by["k-time"].agrees
    assert by["k-ratio"].value == pytest.approx(1.5, rel=1e-9) and not by["k-ratio"].agrees
    assert by["k-noise"].value > 1.0 and by["k-noise"].agrees  # network noise only adds latency
    want = (_dissemination_ns("daint", 16) * 1.73) / (_dissemination_ns("aws-hpc-metal", 16) * 3.88)
    assert by["k-cost"].value == pytest.approx(want, rel=1e-6)  # engine time: integer ps and by["k-cost"].agrees
    assert run.reps_run > 0

    again = reproduce(statements, tmp_path, reps=4, seed=3, in_process=True)
    assert again.reps_run == 0
    assert [o.value for o in again.outcomes] == [o.value for o in run.outcomes]

    more = reproduce(statements, tmp_path, reps=6, seed=3, in_process=True)
    assert 0 < more.reps_run < run.reps_run
    from cloudnoise.sweep.store import by_config, load_results

    folder = next(g.folder for g in more.grids if g.nodes == 16 and "network" in g.variants)
    assert len(by_config(load_results(tmp_path / folder))[("aws-hpc-metal", 16, "network")]) == 6

    data = to_json(more, tmp_path)
    assert data["summary"]["held-out"] == {"agree": 3, "total": 4}
    table = rows(data["statements"])
    assert [r[6] for r in table] == ["yes", "NO", "yes", "yes"]
    assert to_csv(data).splitlines()[0].startswith("statement,figure,role,paper,allowed,ours,agrees")


def test_the_campaign_gives_each_sweeps_own_results_bit_for_bit(tmp_path):
    """`reproduce` runs the tasks of all its sweeps together, largest first (in
    this process and on Dask): every sweep folder holds what `run_sweep` of
    that grid alone gives (one sweep at a time), row for row, bit for bit."""
    from cloudnoise.paper.reproduce import campaign_groups, request_for
    from cloudnoise.sweep.store import load_results
    from cloudnoise.sweep.sweeper import prepare_sweep, run_sweep

    ids = {"fig15-gcp-outliers-5x", "fig17-gcp-15-at-4", "fig14-aws-os-2x"}
    statements = [s for s in SEC_V if s.id in ids]
    grids = plan(statements)
    assert len(grids) >= 3 and {v for g in grids for v in g.variants} == {"none", "os", "network", "both"}
    run = reproduce(statements, tmp_path / "together", reps=3, seed=5, in_process=True)
    dask = reproduce(statements, tmp_path / "dask", reps=3, seed=5, workers=2)
    assert [o.value for o in dask.outcomes] == [o.value for o in run.outcomes]
    for g in grids:
        run_sweep(request_for(g, 3, 5), tmp_path / "alone" / g.folder, in_process=True)
        alone = load_results(tmp_path / "alone" / g.folder).sort_by([("system", "ascending"), ("variant", "ascending"), ("rep", "ascending")])
        for folder in ("together", "dask"):
            got = load_results(tmp_path / folder / g.folder).sort_by([("system", "ascending"), ("variant", "ascending"), ("rep", "ascending")])
            assert got.to_pylist() == alone.to_pylist(), (folder, g.folder)
    # largest first; a noiseless cell is one task of one simulated repetition
    sweeps = [prepare_sweep(request_for(g, 40, 5), tmp_path / "order" / g.folder) for g in grids]
    groups = campaign_groups(sweeps)
    costs = [c for _, _, c in groups]
    assert costs == sorted(costs, reverse=True)
    assert sum(len(ts) for _, ts, _ in groups) == sum(len(s.tasks) for s in sweeps)
    for _, ts, c in groups:
        assert [tc for _, tc in ts] == sorted((tc for _, tc in ts), reverse=True) and c == sum(tc for _, tc in ts)
    assert all(t.reps == 40 for _, ts, _ in groups for t, _ in ts if t.variant == "none")
    # a setup made again after drop_setups is the one planned with
    sw = sweeps[0]
    (system, nodes), planned = next(iter(sw.setups.items()))
    sw.drop_setups()
    again = sw.setup(system, nodes)
    assert (again.seed, again.params, again.ready_order) == (planned.seed, planned.params, planned.ready_order)


def test_cli_json_one_statement_and_errors(tmp_path, run_cli):
    runner = CliRunner()
    out = tmp_path / "p"
    res = runner.invoke(cli, ["paper", "--statement", "fig17-gcp-15-at-4", "--reps", "3", "--in-process", "--json",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert [s["id"] for s in data["statements"]] == ["fig17-gcp-15-at-4"]
    row = data["statements"][0]
    assert row["role"] == "held-out" and (row["low"], row["high"]) == (10.0, 20.0)
    from cloudnoise.sweep.store import by_config, load_results

    runs = by_config(load_results(out / data["sweeps"][0]["folder"]))
    want = np.median(runs[("gcp-hpc", 4, "network")]) / np.median(runs[("gcp-hpc", 4, "none")]) - 1
    assert row["ours"] == pytest.approx(100 * want)
    assert row["agrees"] == (10.0 <= row["ours"] <= 20.0)
    assert json.loads((out / "paper.json").read_text())["statements"][0]["id"] == "fig17-gcp-15-at-4"

    res = run_cli("paper", "--statement", "fig99", "--out", out)
    assert res.returncode == 2 and "no statement 'fig99'" in res.stderr and "Traceback" not in res.stderr


def test_report_shows_the_paper_table_and_refuses_a_malformed_result(tmp_path, run_cli):
    from cloudnoise.report.build import ReportOptions, build_report

    folder = tmp_path / "p"
    folder.mkdir()
    statement = {"id": "fig99-x", "figure": "Fig. 99", "where": "w", "quote": "q", "role": "held-out", "paper": "2x",
                 "low": 1.6, "high": 2.4, "unit": "x", "reading": "r", "measure": "m", "ours": 3.1, "agrees": False,
                 "detail": "", "cause": "the tail is too heavy"}
    data = {"format": "cloudnoise-paper/1", "reps": 7, "seed": 1, "seconds": 1.0, "reps_simulated": 7, "out": "p",
            "summary": {"calibration": {"agree": 0, "total": 0}, "held-out": {"agree": 0, "total": 1}},
            "sweeps": [], "statements": [statement]}
    (folder / "paper.json").write_text(json.dumps(data))
    rep = build_report(ReportOptions(outdir=tmp_path / "r", paper=folder))
    section = next(s for s in rep.sections if s.key == "paper")
    table = section.tables[0]
    assert table.rows == [["fig99-x", "Fig. 99", "held-out", "2x", "1.6x-2.4x", "3.1x", "NO", "the tail is too heavy"]]
    assert table.row_classes == ["disagree"] and "held-out: 0 of 1 agree" in table.note

    (folder / "paper.json").write_text(json.dumps({**data, "statements": [{**statement, "ours": "big"}]}))
    res = run_cli("report", "--paper", folder, "-o", tmp_path / "r2")
    assert res.returncode == 2 and "not a `cloudnoise paper` result" in res.stderr and "Traceback" not in res.stderr
    (folder / "paper.json").write_text("{")
    res = run_cli("report", "--paper", folder, "-o", tmp_path / "r3")
    assert res.returncode == 2 and "not readable as JSON" in res.stderr


def test_a_disagreeing_row_shows_the_cause_of_the_profile_it_reads():
    """The text-model causes (Table II means, fitted OS detours) do not hold for the
    systems built from the authors' data: a row reading such a system names it and
    the data; a row reading only text-built systems keeps its text cause."""
    from cloudnoise.paper.causes import TEXT_CAUSES, causes_for, data_built_systems
    from cloudnoise.paper.statements import SEC_V

    built = data_built_systems()
    assert {"daint", "alps", "azure-hpc"} <= built and not {"oracle-hpc-metal", "aws-hpc", "oracle-normal"} & built
    by_id = {s.id: s for s in SEC_V}
    causes = causes_for(SEC_V, built)
    assert causes["fig14-daint-network-almost-4x"].startswith("daint: built from the authors' own measurements")
    assert "fitted" not in causes["fig14-daint-network-almost-4x"]
    assert causes["fig14-oracle-mean-10ms"] == TEXT_CAUSES["fig14-oracle-mean-10ms"]
    mixed = causes["fig16-64-lowest-10"]  # Oracle (text) among data-built systems
    assert "oracle-hpc-metal (reconstructed from the text)" in mixed and TEXT_CAUSES["fig16-64-lowest-10"] in mixed
    # nothing stale reaches a row whose systems are all data-built
    for sid, text in causes.items():
        systems = {c.system for c in by_id[sid].measure.needs()}
        if systems <= built:
            assert sid not in TEXT_CAUSES or TEXT_CAUSES[sid] not in text, sid


def test_beyond_grids_run_in_the_campaign_and_show_as_past_the_paper(tmp_path):
    """paper --beyond's grids (here one small one in their place) run in the same
    campaign with their own repetitions, no statement reads them, and their points
    are the repetitions' medians; the report marks them as past the paper."""
    from cloudnoise.paper.beyond import BEYOND_NODES, BEYOND_VARIANTS, beyond_grids, beyond_points
    from cloudnoise.paper.reproduce import SweepRuns
    from cloudnoise.paper.table import beyond_rows, read_result
    from cloudnoise.report.build import ReportOptions, build_report
    from cloudnoise.sweep.store import by_config, load_results

    grids = beyond_grids()
    assert [g.nodes for g in grids] == list(BEYOND_NODES) == [4096, 16384]
    assert all(g.workload == "fig15" and g.variants == BEYOND_VARIANTS == ("none", "network") for g in grids)
    assert len(grids[0].systems) == 8
    small = Grid("fig15", 8, ("daint", "aws-hpc-metal"), BEYOND_VARIANTS)
    statement = _st("k-none", Stat("fig14", "daint", 16, "none"), None, None, "us", 1e-3)
    run = reproduce([statement], tmp_path, reps=2, seed=1, in_process=True, extra=[(small, 3)])
    assert run.extra == [small] and small not in run.grids
    points = beyond_points(SweepRuns(tmp_path, run.extra), run.extra)
    runs = by_config(load_results(tmp_path / small.folder))
    for p in points:
        x = runs[(p["system"], 8, p["variant"])]
        assert p["reps"] == 3 == len(x) and p["median_ns"] == pytest.approx(float(np.median(x)))
    rows_ = beyond_rows(points)
    assert len(rows_) == 2 and all(r[1] == "8" and "beyond the paper" in r[-1] for r in rows_)
    net = next(p for p in points if p["system"] == "daint" and p["variant"] == "network")
    none = next(p for p in points if p["system"] == "daint" and p["variant"] == "none")
    assert rows_[0][4] == f"{net['median_ns'] / none['median_ns']:.2f}x"

    data = {**to_json(run, tmp_path), "beyond": {"reps": 3, "points": points}}
    (tmp_path / "paper.json").write_text(json.dumps(data))
    assert read_result(tmp_path)["beyond"]["points"] == points
    rep = build_report(ReportOptions(outdir=tmp_path / "r", paper=tmp_path))
    section = next(s for s in rep.sections if s.key == "paper")
    assert len(section.tables) == 2 and section.tables[1].rows == rows_
    assert "stops at 1,024 nodes" in section.tables[1].note
    (tmp_path / "paper.json").write_text(json.dumps({**data, "beyond": {"points": [{"system": 1}]}}))
    with pytest.raises(Exception, match="beyond"):
        read_result(tmp_path)


def test_beyond_reps_needs_beyond(tmp_path, run_cli):
    res = run_cli("paper", "--beyond-reps", "2", "--out", tmp_path / "p", "--statement", "fig17-gcp-15-at-4")
    assert res.returncode == 2 and "--beyond-reps goes with --beyond" in res.stderr
