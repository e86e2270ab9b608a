"""User price files: rows read and dated, what they override, and every kind of
bad file refused with one line that names FILE:LINE (exit status 2 on the CLI)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from cloudnoise.costs.price_book import price_book
from cloudnoise.costs.price_file import load_price_file
from cloudnoise.errors import CloudnoiseError
from cloudnoise.profiles.registry import load_builtin

TODAY = dt.date(2025, 6, 1)
HEADER = "system,pricing,usd_per_node_hour,date,source\n"


def write(tmp_path: Path, text: str, name: str = "prices.csv") -> Path:
    p = tmp_path / name
    p.write_text(text)
    return p


def test_rows_quotes_and_dates(tmp_path: Path) -> None:
    f = write(tmp_path, "System, Pricing ,USD per node-hour,Date,Source,billing\n"
                        "azure-hpc,on-demand,3.60,2025-05-01,https://azure.example/price,\n"
                        "azure-hpc,spot,$0.72,2025-05-02,portal,1h\n"
                        "\n"
                        "daint,committed,1.10,2025-04-30,CSCS quote 42,\n")
    pf = load_price_file(f, TODAY)
    assert pf.kinds("azure-hpc") == ["on-demand", "spot"] and pf.systems() == ["azure-hpc", "daint"]
    spot = pf.get("azure-hpc", "spot")
    assert spot.usd_per_node_hour == 0.72 and spot.line == 3 and spot.billing.increment_s == 3600
    azure = load_builtin("azure-hpc")
    od = price_book("on-demand", f, today=TODAY).quote(azure)
    assert (od.usd_per_node_hour, od.date, od.pricing) == (3.60, "2025-05-01", "on-demand")
    assert "https://azure.example/price" in od.source and f"{f}:2" in od.source
    assert od.billing.minimum_s == 300  # no billing column: the provider's rule
    # a spot row wins over spot:F; its billing column is used
    sp = price_book("spot:0.5", f, today=TODAY).quote(azure)
    assert sp.usd_per_node_hour == 0.72 and sp.billing.label() == "per-hour"
    assert sp.cost_usd(10.0, 2) == pytest.approx(1 * 2 * 0.72)
    # spot:F with only an on-demand row: F x the file's on-demand price, dated like it
    gcp_file = write(tmp_path, HEADER + "gcp-hpc,on-demand,4.50,2025-03-03,gcp page\n", "g.csv")
    g = price_book("spot:0.4", gcp_file, today=TODAY).quote(load_builtin("gcp-hpc"))
    assert g.usd_per_node_hour == pytest.approx(1.8) and g.date == "2025-03-03"
    # a system the file does not list keeps its Table I price and date
    d = price_book("on-demand", f, today=TODAY).quote(load_builtin("aws-hpc"))
    assert (d.usd_per_node_hour, d.date) == (3.88, "2022-07-18")


def test_pricing_file_alone_takes_each_systems_one_kind(tmp_path: Path) -> None:
    f = write(tmp_path, HEADER + "daint,committed,1.10,2025-04-30,quote\n"
                                 "azure-hpc,on-demand,3.6,2025-05-01,page\nazure-hpc,spot,0.7,2025-05-01,page\n")
    book = price_book(str(f), today=TODAY)
    assert book.quote(load_builtin("daint")).pricing == "committed"
    with pytest.raises(CloudnoiseError, match="on-demand, spot prices for azure-hpc: pick one with --pricing on-demand --prices"):
        book.quote(load_builtin("azure-hpc"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", r"prices\.csv:1: empty price file"),
        ("system,pricing,usd_per_node_hour\ndaint,on-demand,1\n", r"prices\.csv:1: missing columns date, source"),
        ("system,pricing,usd_per_node_hour,date,source,colour\n", r"prices\.csv:1: unknown column 'colour'"),
        (HEADER + "daint,on-demand,-1.5,2025-01-01,x\n", r"prices\.csv:2: usd_per_node_hour must be a positive number of USD, got '-1.5'"),
        (HEADER + "daint,on-demand,0,2025-01-01,x\n", r"prices\.csv:2: usd_per_node_hour must be a positive"),
        (HEADER + "daint,on-demand,nan,2025-01-01,x\n", r"prices\.csv:2: usd_per_node_hour must be a positive"),
        (HEADER + "daint,on-demand,cheap,2025-01-01,x\n", r"prices\.csv:2: usd_per_node_hour must be a number"),
        (HEADER + "daint,on-demand,1.7,18/07/2022,x\n", r"prices\.csv:2: date must be YYYY-MM-DD .*'18/07/2022'"),
        (HEADER + "daint,on-demand,1.7,2022-02-30,x\n", r"prices\.csv:2: date must be YYYY-MM-DD"),
        (HEADER + "daint,on-demand,1.7,2031-01-01,x\n", r"prices\.csv:2: date 2031-01-01 is in the future"),
        (HEADER + "daint,hourly,1.7,2025-01-01,x\n", r"prices\.csv:2: pricing must be one of on-demand, committed, spot"),
        (HEADER + "daint,on-demand,1.7,2025-01-01,\n", r"prices\.csv:2: empty source"),
        (HEADER + ",on-demand,1.7,2025-01-01,x\n", r"prices\.csv:2: empty system name"),
        (HEADER + "daint,on-demand,1.7,2025-01-01\n", r"prices\.csv:2: 4 fields, the header has 5"),
        (HEADER + "daint,on-demand,1.7,2025-01-01,x\ndaint,on-demand,1.8,2025-01-02,y\n",
         r"prices\.csv:3: a second on-demand price for daint \(the first is on line 2\)"),
        (HEADER, r"prices\.csv: no prices below the header"),
    ],
)
def test_bad_price_files(tmp_path: Path, text: str, message: str) -> None:
    f = write(tmp_path, text)
    with pytest.raises(CloudnoiseError, match=message) as err:
        load_price_file(f, TODAY)
    assert "\n" not in str(err.value)


def test_unreadable_price_files(tmp_path: Path) -> None:
    with pytest.raises(CloudnoiseError, match="no such price file"):
        load_price_file(tmp_path / "missing.csv")
    (tmp_path / "bin.csv").write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(CloudnoiseError, match="not a text file"):
        load_price_file(tmp_path / "bin.csv")
    with pytest.raises(CloudnoiseError, match="give the price file once"):
        price_book(str(write(tmp_path, HEADER + "daint,on-demand,1,2025-01-01,x\n")), tmp_path / "other.csv")
