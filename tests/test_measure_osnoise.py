"""Selfish detour recovers a known, injected OS noise.

The probe's hidden --inject-detour option arms an interval timer whose
signal handler busy-waits D microseconds every P microseconds. Other noise on
the machine (a shared 2-core box: preemptions of milliseconds) is there too,
so the injected detours are picked as those within a factor of two of D; the
median of their durations must be D and the median spacing of their starts
P, both within 10 %.
"""

from __future__ import annotations

import numpy as np

from measure_support import mpi_or_skip, run_json

PERIOD_US = 20000.0
DURATION_US = 1000.0


def _read_trace(path):
    rows = [ln.split("\t") for ln in path.read_text().splitlines() if ln and not ln.startswith("#")]
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def test_selfish_detour_recovers_injected_noise(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    doc = run_json("measure", "os-noise", "--duration", "3", "--out", str(out),
                   "--inject-detour", f"{PERIOD_US:.0f}:{DURATION_US:.0f}")
    assert doc["complete"] is True
    row = doc["results"][0]
    assert row["threshold_ns"] == 9 * row["t_min_ns"]
    trace = _read_trace(out / "os-noise" / "os_noise.trace")
    starts, durations = trace[:, 0], trace[:, 1] / 1e3
    injected = (durations > DURATION_US / 2) & (durations < DURATION_US * 2)
    assert injected.sum() >= 0.5 * 3e6 / PERIOD_US
    d = float(np.median(durations[injected]))
    p = float(np.median(np.diff(starts[injected]))) / 1e3
    assert abs(d - DURATION_US) / DURATION_US < 0.10, d
    assert abs(p - PERIOD_US) / PERIOD_US < 0.10, p


def test_trace_format_and_detour_limit(tmp_path):
    mpi_or_skip()
    out = tmp_path / "c"
    doc = run_json("measure", "os-noise", "--duration", "5", "--detours", "50", "--out", str(out),
                   "--inject-detour", "2000:100")
    text = (out / "os-noise" / "os_noise.trace").read_text().splitlines()
    assert text[0].startswith("#")
    data = [ln for ln in text if not ln.startswith("#")]
    assert len(data) == 50 == doc["results"][0]["detours"]
    for line in data:
        start, duration = line.split("\t")
        assert int(start) >= 0 and int(duration) > 0
    assert doc["results"][0]["duration_s"] < 4
