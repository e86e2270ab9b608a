"""The recommendation's why from its critical path: the clause said for known reads,
and `advise` end to end carrying it (and the path in --json)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from cloudnoise.advice.critical_path import why_text
from cloudnoise.explanation.attribution import Slowdown, TailCause
from cloudnoise.explanation.decomposition import KINDS, KindShare


def read(shares: dict[str, float], slowdown: Slowdown | None, median: str, tail: str) -> SimpleNamespace:
    rows = [KindShare(k, shares.get(k, 0.0), shares.get(k, 0.0), 0.0, shares.get(k, 0.0)) for k in KINDS]
    return SimpleNamespace(shares=rows, slowdown=slowdown, tail=TailCause(median, tail, {}, {}, []))


def test_the_largest_kinds_the_noise_that_slows_it_and_a_tail_of_its_own():
    v = read({"latency_noise": 0.57, "L": 0.24, "o": 0.1, "g": 0.04, "os_noise": 0.05},
             Slowdown(2.1, 1000.0, {"os_noise": 100.0, "latency_noise": 900.0, "bandwidth_noise": 0.0}, {}),
             "latency_noise", "os_noise")
    assert why_text(v) == ("on its critical path: latency noise 57%, L 24%, o 10% of the runtime; noise makes it "
                           "2.1x slower, mostly latency noise; its p99 owes most to OS detours")


def test_a_quiet_run_is_its_terms_alone():
    v = read({"L": 0.8, "o": 0.2}, None, "none", "none")
    assert why_text(v) == "on its critical path: L 80%, o 20% of the runtime"


def test_advise_says_why_from_the_recommendations_path():
    from cloudnoise import advise

    out = advise("dissemination:16B", profiles="daint,azure-hpc", nodes=[8], reps=20)
    rec = out.recommendation
    assert rec.point is not None and "on its critical path:" in rec.why
    path = out.to_dict()["recommendation"]["critical_path"]
    assert path["reps"] == 20 and sum(s["mean_fraction"] for s in path["shares"]) == pytest.approx(1.0)
