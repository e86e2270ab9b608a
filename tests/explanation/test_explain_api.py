"""`explain` end to end through its Python API, on cases with known answers: the noiseless
dissemination's shares, and a unique path where OS and latency noise add up, so the split
of the slowdown must equal what `os` and `network` give alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.explanation.api import explain
from cloudnoise.model.distributions import Constant
from cloudnoise.model.os_noise import OSNoiseTrace
from cloudnoise.simulation.noise import NoiseSetup
from cloudnoise.simulation.params import LogGOPS

PARAMS = LogGOPS.parse(L="2500", o="1500", g="1000", G="0.006", O="0", S="65535")


def test_noiseless_dissemination_is_its_latencies_and_overheads():
    out = explain(pattern="dissemination", ranks=16, size="16B", params=PARAMS, reps=3)
    assert list(out.variants) == ["none"]
    v = out.variants["none"]
    T = float(v.result.runtime_ns[0])
    by_kind = {s.kind: s for s in v.shares}
    assert by_kind["L"].median_share == pytest.approx(4 * 2500 / T)
    assert by_kind["o"].median_ns == 8 * 1500  # a send's and a receive's o per round
    assert v.slowdown is None and v.noisy_ranks == [] and v.tail.tail_cause == "none"
    assert out.to_dict()["variants"]["none"]["reps"] == 3


def chain(ranks: int) -> _engine.Schedule:
    """Rank r receives from r - 1 (after its calc of 10 us), then sends to r + 1: one path."""
    lines = [f"num_ranks {ranks}"]
    for r in range(ranks):
        body = [] if r == 0 else [f"r: recv 64b from {r - 1} tag 1"]
        body += ["c: calc 10000"] + (["c requires r"] if r else [])
        if r + 1 < ranks:
            body += [f"s: send 64b to {r + 1} tag 1", "s requires c"]
        lines.append(f"rank {r} {{\n" + "\n".join(body) + "\n}")
    return _engine.parse_goal("\n".join(lines).encode())


def additive_noise() -> NoiseSetup:
    # A 3 us detour at 5 us, read by every rank from offset 0: only rank 0's calc meets it,
    # whether the messages are late or not; and 400 ns more latency on every message.
    trace = OSNoiseTrace(np.array([0, 5000, 10**9]), np.array([0, 3000, 1]))
    return NoiseSetup(os_trace=trace, os_phase_ns=0, latency=Constant(400.0), os_source="test", latency_source="test")


def test_the_slowdown_split_is_what_each_noise_gives_alone_when_they_add():
    out = explain(chain(4), params=PARAMS, noise=additive_noise(), variant=["os", "network", "both"], reps=2)
    assert list(out.variants) == ["none", "os", "network", "both"]
    base = float(np.median(out.variants["none"].result.runtime_ns))
    alone = {v: float(np.median(out.variants[v].result.runtime_ns)) - base for v in ("os", "network")}
    assert alone == {"os": 3000.0, "network": 3 * 400.0}
    both = out.variants["both"].slowdown
    assert both is not None
    assert both.excess_ns == alone["os"] + alone["network"]
    assert both.by_noise_ns == pytest.approx({"os_noise": alone["os"], "latency_noise": alone["network"],
                                              "bandwidth_noise": 0.0})
    assert out.variants["both"].tail.median_cause == "os_noise"
    assert [r.rank for r in out.variants["both"].noisy_ranks] == [0, 1, 2]  # the detour's rank, then the senders


def test_a_variant_that_draws_nothing_runs_once_for_every_repetition():
    out = explain(chain(3), params=PARAMS, noise=additive_noise(), variant="both", reps=40)
    for v in out.variants.values():
        assert len(v.result.runtime_ns) == 40 and v.paths.parts_ps.shape[0] == 40
        assert len(set(v.result.runtime_ns.tolist())) == 1
    assert set(out.variants["both"].paths.noise[:, 0].tolist()) == set(range(40))


def test_bad_requests_are_one_line_errors():
    with pytest.raises(CloudnoiseError, match="needs OS noise"):
        explain(pattern="dissemination", ranks=4, size="8B", params=PARAMS, noise="os")
    with pytest.raises(CloudnoiseError, match="at least 1"):
        explain(pattern="dissemination", ranks=4, size="8B", params=PARAMS, reps=0)
    with pytest.raises(CloudnoiseError, match="unknown variant"):
        explain(pattern="dissemination", ranks=4, size="8B", params=PARAMS, noise="loud")
