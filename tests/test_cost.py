"""Cost arithmetic checked by hand, pricing parsing, comparisons and the cost command."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from cloudnoise.cli import cli
from cloudnoise.costs.model import (
    Pricing,
    cheapest,
    compare_systems,
    cost_of_run,
    costs_at_scales,
    noise_cost_increase,
    parse_pricing,
    run_cost_usd,
)
from cloudnoise.errors import CloudnoiseError
from cloudnoise.profiles.registry import load_builtin


def test_run_cost_by_hand():
    assert run_cost_usd(3600.0, 1, 2.0) == pytest.approx(2.0)
    assert run_cost_usd(1.5, 64, 1.73) == pytest.approx(1.5 / 3600 * 64 * 1.73)  # 0.046133...
    assert run_cost_usd(1.5, 64, 1.73) == pytest.approx(0.0461333333)
    assert run_cost_usd(0.2, 16384, 4.03) == pytest.approx(3.6681955556, rel=1e-9)  # 0.2 s = 1/18000 h; x 16384 x 4.03


def test_noise_increase():
    assert noise_cost_increase(1.5, 1.0) == pytest.approx(0.5)
    assert noise_cost_increase(1.0, 1.0) == 0.0
    with pytest.raises(CloudnoiseError):
        noise_cost_increase(1.0, 0.0)


def test_pricing_kinds_on_profiles():
    gcp = load_builtin("gcp-hpc")
    assert parse_pricing("on-demand").require_price(gcp) == 4.03
    assert parse_pricing("committed").require_price(gcp) == 2.148
    assert parse_pricing("spot:0.3").require_price(gcp) == pytest.approx(1.209)
    assert parse_pricing("1.25").require_price(gcp) == 1.25
    assert parse_pricing("$2/node-hour").require_price(gcp) == 2.0
    alps = load_builtin("alps")
    with pytest.raises(CloudnoiseError, match="alps has no published on-demand price"):
        parse_pricing("on-demand").require_price(alps)
    with pytest.raises(CloudnoiseError, match="committed"):
        parse_pricing("committed").require_price(load_builtin("oracle-hpc-metal"))
    assert parse_pricing("3").require_price(alps) == 3.0


@pytest.mark.parametrize("bad", ["cheap", "spot", "spot:1.5", "spot:x", "-2", "0"])
def test_bad_pricing(bad):
    with pytest.raises(CloudnoiseError):
        parse_pricing(bad)


def test_cost_of_run_with_noise():
    daint = load_builtin("daint")
    row = cost_of_run(daint, 1024, 0.03, Pricing("committed"), noiseless_runtime_s=0.02)
    assert row.price_per_node_hour == 1.02
    assert row.cost_usd == pytest.approx(0.03 / 3600 * 1024 * 1.02)
    assert row.noiseless_cost_usd == pytest.approx(0.02 / 3600 * 1024 * 1.02)
    assert row.noise_increase == pytest.approx(0.5)
    assert row.cost_usd / row.noiseless_cost_usd - 1 == pytest.approx(row.noise_increase)


def test_costs_at_each_scale():
    """Billed as Azure bills by default (per second, 5-minute minimum), pro rata with EXACT."""
    from cloudnoise.costs.billing import EXACT

    rows = costs_at_scales(load_builtin("azure-hpc"), {64: 1.0, 16: 0.5}, Pricing("on-demand"), {16: 0.25})
    assert [r.nodes for r in rows] == [16, 64]
    assert rows[0].cost_usd == pytest.approx(300 / 3600 * 16 * 3.168) and rows[0].billing == "per-second, 5 min minimum"
    assert rows[0].noise_increase == 0.0  # both runs are billed the minimum
    assert rows[1].noise_increase is None
    exact = costs_at_scales(load_builtin("azure-hpc"), {64: 1.0, 16: 0.5}, Pricing("on-demand"), {16: 0.25}, EXACT)
    assert exact[0].cost_usd == pytest.approx(0.5 / 3600 * 16 * 3.168) and exact[0].billing == "pro rata"
    assert exact[0].noise_increase == pytest.approx(1.0)


def test_cheapest_system():
    runs = [
        (load_builtin("aws-hpc-metal"), 3.0, None),  # 3.0 * 3.88 = 11.64 per node-hour-second
        (load_builtin("daint"), 5.0, None),  # 5.0 * 1.73 = 8.65
        (load_builtin("azure-hpc"), 2.5, None),  # 2.5 * 3.168 = 7.92
        (load_builtin("alps"), 1.0, None),  # no price
    ]
    from cloudnoise.costs.billing import EXACT

    rows = compare_systems(runs, 256, Pricing("on-demand"), EXACT)
    assert [r.system for r in rows] == ["azure-hpc", "daint", "aws-hpc-metal", "alps"]
    assert cheapest(rows).system == "azure-hpc"
    assert rows[-1].cost_usd is None
    with pytest.raises(CloudnoiseError):
        cheapest(rows[-1:])
    # as billed: daint 5 s by the second (8.65), AWS's 60 s minimum (232.8), Azure's 5 minutes (950.4)
    billed = compare_systems(runs, 256, Pricing("on-demand"))
    assert [r.system for r in billed] == ["daint", "aws-hpc-metal", "azure-hpc", "alps"]
    assert [r.cost_usd for r in billed[:3]] == [pytest.approx(x * 256 / 3600) for x in (8.65, 232.8, 950.4)]


def test_cost_command_json():
    runner = CliRunner()
    out = runner.invoke(cli, ["cost", "--profile", "daint", "--nodes", "64", "--runtime", "1.5s", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["rows"][0]["cost_usd"] == pytest.approx(2 / 3600 * 64 * 1.73)  # billed by the second: 2 s
    assert data["billing"] == "billed as each provider bills" and data["rows"][0]["billing"] == "per-second"
    out = runner.invoke(cli, ["cost", "--profile", "gcp-hpc", "--nodes", "16,256", "--runtime", "200ms,300ms",
                              "--noiseless-runtime", "100ms,200ms", "--pricing", "committed", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert [r["noise_increase"] for r in rows] == [pytest.approx(1.0), pytest.approx(0.5)]
    assert rows[1]["cost_usd"] == pytest.approx(0.3 / 3600 * 256 * 2.148)
    out = runner.invoke(cli, ["cost", "--compare", "daint=1.2s/1s", "--compare", "aws-hpc-metal=400ms",
                              "--nodes", "1024", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["cheapest"] == "daint"  # 2 s billed x 1.73 < AWS's 60 s minimum x 3.88
    assert data["rows"][0]["noise_increase"] == pytest.approx(1.0)  # 2 s billed against 1 s
    out = runner.invoke(cli, ["cost", "--compare", "daint=1.2s/1s", "--compare", "aws-hpc-metal=400ms",
                              "--nodes", "1024", "--billing", "exact", "--json"])
    data = json.loads(out.output)
    assert data["cheapest"] == "aws-hpc-metal" and data["billing"] == "billed pro rata"  # 0.4 * 3.88 < 1.2 * 1.73
    assert data["rows"][1]["noise_increase"] == pytest.approx(0.2)


def test_a_plain_runtime_is_nanoseconds_and_said_so(capsys):
    """docs/cli.md: a plain number is ns for simulated time; one note says so on stderr."""
    from cloudnoise.cli import main

    main(["cost", "--profile", "daint", "--nodes", "16", "--runtime", "5000", "--billing", "exact", "--json"])
    captured = capsys.readouterr()
    assert json.loads(captured.out)["rows"][0]["runtime_s"] == pytest.approx(5e-6)
    assert captured.err.strip() == ("cloudnoise: note: a runtime given as a plain number (5000) is nanoseconds, as every "
                                    "simulated time is; write 5000s for seconds")
    main(["cost", "--profile", "daint", "--nodes", "16", "--runtime", "5us", "--json"])
    assert capsys.readouterr().err == ""


def test_cost_command_tables_and_errors():
    runner = CliRunner()
    out = runner.invoke(cli, ["cost", "--compare", "daint=1s", "--compare", "alps=1s", "--nodes", "16"])
    assert out.exit_code == 0 and "cheapest: daint" in out.output
    out = runner.invoke(cli, ["cost", "--profile", "alps", "--nodes", "16", "--runtime", "1s"])
    assert out.exit_code != 0
    out = runner.invoke(cli, ["cost", "--profile", "daint", "--nodes", "16,32", "--runtime", "1s"])
    assert out.exit_code != 0


def test_cost_money_csv_and_the_old_option_name(capsys):
    from cloudnoise.cli import main

    # 16 B on 16 nodes for 3 us at 1.73 USD/node-hour, pro rata: 3e-6 / 3600 * 16 * 1.73 = 2.3067e-08 USD
    main(["cost", "--profile", "daint", "--nodes", "16", "--runtime", "3us", "--billing", "exact"])
    out = capsys.readouterr().out
    assert "2.31e-8" in out and "0.0000" not in out and "e-08" not in out  # no run of zeros to count
    assert "billed pro rata" in out
    main(["cost", "--profile", "daint", "--nodes", "16,32", "--runtime", "1s,2s", "--csv"])
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("system,nodes,runtime_s,price_per_node_hour,billing,cost_usd") and len(lines) == 3
    assert lines[2].startswith("daint,32,2.0,1.73,per-second,")
    main(["cost", "--system", "daint", "--nodes", "16", "--runtime", "1s", "--json"])  # hidden alias, one release
    captured = capsys.readouterr()
    assert json.loads(captured.out)["system"] == "daint"
    assert "--system is deprecated and will go; use --profile" in captured.err


def test_sweep_cost_summary_known_answers():
    from cloudnoise.costs.cli import sweep_summary

    def row(system, nodes, variant, cost, inc):
        return {"system": system, "nodes": nodes, "variant": variant, "cost_usd": cost, "noise_increase": inc}

    data = {
        "rows": [row("a", 4, "none", 1.0, None), row("a", 4, "both", 1.5, 0.5),
                 row("b", 4, "none", 2.0, None), row("b", 4, "both", 2.2, 0.1)],
        "cheapest": [{"nodes": 4, "variant": "none", "system": "a", "cost_usd": 1.0},
                     {"nodes": 4, "variant": "both", "system": "a", "cost_usd": 1.5}],
    }
    (s,) = sweep_summary(data)
    assert s["noisy_variant"] == "both" and s["cheapest_noiseless"]["system"] == "a"
    assert s["cheapest_noisy"]["cost_usd"] == 1.5
    assert s["noise_cost_percent_min"] == pytest.approx(10.0) and s["noise_cost_percent_max"] == pytest.approx(50.0)


def test_config_costs_known_answers():
    """Median run priced per configuration; the increase is over the same
    system and nodes without noise, and needs no profile."""
    import numpy as np

    from cloudnoise.costs.configs import config_costs
    from cloudnoise.profiles.registry import load_builtin

    runtimes = {
        ("daint", 2, "none"): np.array([1e9, 1e9, 3e9]),
        ("daint", 2, "os"): np.array([1.5e9, 1.5e9, 9e9]),
        ("mine", 2, "none"): np.array([2e9]),
        ("mine", 2, "network"): np.array([5e9]),
    }
    from cloudnoise.costs.billing import EXACT

    rows = config_costs(runtimes, {"daint": load_builtin("daint"), "mine": None}, parse_pricing("2USD"), EXACT)
    by = {(r.system, r.variant): r for r in rows}
    assert [(r.system, r.variant) for r in rows] == list((k[0], k[2]) for k in runtimes)
    assert by[("daint", "os")].median_runtime_s == 1.5 and by[("daint", "os")].reps == 3
    assert by[("daint", "os")].cost_usd == pytest.approx(1.5 / 3600 * 2 * 2.0)
    billed = {(r.system, r.variant): r for r in config_costs(runtimes, {"daint": load_builtin("daint")}, parse_pricing("2USD"))}
    assert billed[("daint", "os")].cost_usd == pytest.approx(2 / 3600 * 2 * 2.0)  # the median's 1.5 s billed as 2 s
    assert by[("daint", "os")].increase == pytest.approx(0.5) and by[("daint", "none")].increase is None
    assert by[("mine", "network")].cost_usd is None and by[("mine", "network")].increase == pytest.approx(1.5)
