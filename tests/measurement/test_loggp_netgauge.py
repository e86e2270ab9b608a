"""LogGP(S) from Netgauge's LogGP table, tested on tables generated from known parameters."""

from __future__ import annotations

import io

import numpy as np
import pytest

from cloudnoise.measurement import loggp_netgauge
from cloudnoise.measurement.imports import netgauge_loggp_table
from cloudnoise.measurement.samples import RECORD

from netgauge_synthetic import loggp_table

KNOWN = dict(L=1.2, o_s=0.3, o_r=0.4, g=0.9, G=0.0001)  # us, us/B (G = 0.1 ns/B)


def _fit(text: str) -> dict:
    table = netgauge_loggp_table.read(io.BytesIO(text.encode()), "ng_loggp.out")
    rec = table.records()
    data = {name: np.asarray(rec[name]) for name in RECORD.names}
    return loggp_netgauge.fit(data, table.n, table.netgauge_parameters())


def test_known_parameters_come_back():
    fit = _fit(loggp_table(**KNOWN, S=8192, rendezvous_ns=2000.0))
    assert fit["o_s"] == pytest.approx(300.0, abs=1.0)
    assert fit["o_r"] == pytest.approx(400.0, abs=1.0)
    assert fit["L"] == pytest.approx(1200.0, abs=1.0)
    assert fit["g"] == pytest.approx(900.0, abs=1.0)  # the 1-byte train's gap: g > o_s
    assert fit["S"] == 8192
    eager, rendezvous = fit["size_classes"][0], fit["size_classes"][-1]
    assert eager["min_bytes"] == 0 and eager["G"] == pytest.approx(0.1, rel=1e-3)
    assert rendezvous["min_bytes"] == 8193
    assert rendezvous["L"] == pytest.approx(1200.0 + 2000.0, rel=1e-3) and rendezvous["G"] == pytest.approx(0.1, rel=1e-3)
    assert fit["G"] == pytest.approx(0.1, rel=1e-3)
    own = fit["netgauge"]
    # Netgauge's L is PRTT(1,0,1)/2, which holds both overheads: o_s + L + o_r
    assert own["L"] == pytest.approx(1900.0, abs=1.0) and own["o_s"] == pytest.approx(300.0, abs=1.0)
    assert own["o_r"] == pytest.approx(400.0, abs=1.0)


def test_a_send_overhead_above_g_sets_the_gap():
    """LogGP: back-to-back sends leave max(o_s, g) apart; the estimate says what a train shows."""
    fit = _fit(loggp_table(L=1.2, o_s=1.5, o_r=0.4, g=0.9, G=0.0001, S=8192, rendezvous_ns=2000.0))
    assert fit["g"] == pytest.approx(1500.0, abs=1.0)


def test_no_step_means_no_rendezvous_seen():
    fit = _fit(loggp_table(**KNOWN, S=10**9))
    assert fit["S"] == 1 + 1024 * 127
    assert "no rendezvous step" in fit["notes"][0]
    assert len(fit["size_classes"]) == 1 and fit["size_classes"][0]["G"] == pytest.approx(0.1, rel=1e-3)


def test_noisy_table_still_finds_the_switch_and_the_slope():
    """1 % multiplicative noise on every round trip (seeded): S exact, L and G within 5 %."""
    rng = np.random.default_rng(7)
    lines = loggp_table(**KNOWN, S=16384, rendezvous_ns=3000.0).splitlines()
    noisy = lines[:3]
    for row in lines[3:]:
        f = row.split()
        for k in (2, 3, 4):
            f[k] = f"{float(f[k]) * (1 + 0.01 * rng.standard_normal()):.6f}"
        noisy.append(" ".join(f))
    fit = _fit("\n".join(noisy) + "\n")
    assert fit["S"] == 16384
    assert fit["size_classes"][-1]["G"] == pytest.approx(0.1, rel=0.05)
    assert fit["L"] == pytest.approx(1200.0, rel=0.05)


def test_rendezvous_limit_needs_a_lasting_step():
    sizes = np.array([1 + 1024 * k for k in range(20)])
    T = 1000.0 + 0.1 * sizes
    spike = T.copy()
    spike[10] += 5000.0  # one slow size, back to the line after it
    assert loggp_netgauge.rendezvous_limit(sizes, spike)[0] == int(sizes[-1])
    step = T.copy()
    step[10:] += 5000.0
    assert loggp_netgauge.rendezvous_limit(sizes, step)[0] == int(sizes[10]) - 1


def test_a_size_written_twice_keeps_its_last_row_and_a_size_going_down_is_damage():
    """Netgauge writes a size again with its line refitted (the artifact's March Daint runs)."""
    lines = loggp_table(**KNOWN, S=8192, rendezvous_ns=2000.0).splitlines()
    again = " ".join(lines[6].split()[:8] + ["9.999999", "0.000200", "1.0"])
    table = netgauge_loggp_table.read(io.BytesIO("\n".join(lines[:7] + [again] + lines[7:]).encode() + b"\n"), "t")
    assert len(table.sizes) == len(lines) - 3 and len(set(table.sizes.tolist())) == len(table.sizes)
    assert table.columns["g"][3] == pytest.approx(9.999999)
    down = "\n".join(lines[:7] + [lines[5]] + lines[7:]) + "\n"
    with pytest.raises(Exception, match="line 8: sizes go down"):
        netgauge_loggp_table.read(io.BytesIO(down.encode()), "t")
