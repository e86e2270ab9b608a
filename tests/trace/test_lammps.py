"""LAMMPS as its users run it (tests/trace/data/lammps-melt-2, -4: the melt
example recorded on 2 and 4 ranks, see data/README.md), extrapolated by its
own decomposition: LAMMPS makes a periodic Cartesian grid (1 x 1 x 2, 1 x 2
x 2), sends on MPI_COMM_WORLD to MPI_Cart_shift's neighbours and skips the
dimensions of one rank."""

from __future__ import annotations

from pathlib import Path

import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.simulation.api import simulate
from cloudnoise.trace.convert import to_schedule
from cloudnoise.trace.extrapolate import ExtrapolatedTrace, extrapolated
from cloudnoise.trace.reader import open_trace
from cloudnoise.trace.structure import structure

DATA = Path(__file__).resolve().parent / "data"
TWO, FOUR = DATA / "lammps-melt-2", DATA / "lammps-melt-4"


def test_the_traces_hold_the_decomposition() -> None:
    calls = list(open_trace(FOUR).calls(0))
    cart = next(c for c in calls if c.name == "MPI_Cart_create")
    assert cart.comm_info.dims == (1, 2, 2) and cart.comm_info.periods == (1, 1, 1) and not cart.comm_info.reorder
    assert sum(c.name == "MPI_Cart_shift" for c in calls) == 3
    assert {c.comm for c in calls if c.kind in ("send", "irecv", "sendrecv")} == {0}  # on MPI_COMM_WORLD


def test_the_two_rank_trace_simulates_as_recorded_and_extrapolates_to_4_and_64() -> None:
    base = open_trace(TWO)
    own, conv = to_schedule(base)
    r = simulate(own, L=1000, o=100, g=0, G=0, O=0)
    assert r.runtime_ns[0] >= max(conv.compute_ns)  # the compute is replayed as recorded
    traced = structure(base)
    assert all(s.peers == 1 for s in traced)  # one neighbour (+1 and -1 along dim 2)
    for n, dims, peers in ((4, (2, 1, 2), 2), (64, (4, 4, 4), 6)):
        ext = extrapolated(base, n)
        assert isinstance(ext, ExtrapolatedTrace) and ext.grid_dims == dims
        per_rank = structure(ext)
        assert {s.peers for s in per_rank} == {peers}
        # every dimension of more than one rank exchanges as the traced one did
        moving = sum(d > 1 for d in dims)
        assert {s.sends for s in per_rank} == {moving * traced[0].sends}
        schedule, _ = to_schedule(ext)
        assert simulate(schedule, L=1000, o=100, g=0, G=0, O=0).runtime_ns[0] > 0


def test_four_ranks_to_sixteen_weak_and_strong() -> None:
    base = open_trace(FOUR)
    traced = structure(base)
    weak, strong = extrapolated(base, 16), extrapolated(base, 16, scaling="strong")
    assert weak.grid_dims == strong.grid_dims == (2, 4, 2)
    w, s = structure(weak), structure(strong)
    assert {x.peers for x in w} == {x.peers for x in s} == {4}  # 1 + 2 + 1 neighbours
    assert {x.sends for x in w} == {x.sends for x in s}
    assert min(x.sends for x in w) > traced[0].sends  # dim 0 now exchanges too
    assert max(x.bytes for x in s) < min(x.bytes for x in w)  # smaller faces
    assert "strong scaling: compute x0.25" in strong.label and "dim 0" in strong.label
    # compute per rank a quarter of weak's
    _, cw = to_schedule(weak)
    _, cs = to_schedule(strong)
    assert cs.compute_ns[0] == pytest.approx(cw.compute_ns[0] / 4, rel=0.01)


def test_a_bad_grid_and_strong_scaling_without_a_grid_are_one_line(tmp_path: Path) -> None:
    base = open_trace(FOUR)
    with pytest.raises(CloudnoiseError, match=r"--grid 4x4x2 holds 32 ranks, not --ranks 16"):
        extrapolated(base, 16, grid="4x4x2")
    with pytest.raises(CloudnoiseError, match="--scaling strong needs a decomposition"):
        extrapolated(open_trace(DATA / "sweep3d-2x2"), 16, scaling="strong")
    assert extrapolated(base, 16, grid="4x2x2").grid_dims == (4, 2, 2)


@pytest.mark.parametrize(("trace", "scaling"), [(TWO, "weak"), (FOUR, "strong")], ids=("2-weak", "4-strong"))
def test_extrapolated_to_64_ranks_every_repetition_completes_under_noise(trace: Path, scaling: str) -> None:
    schedule, _ = to_schedule(extrapolated(open_trace(trace), 64, scaling=scaling))
    r = simulate(schedule, profile="aws-hpc-metal", noise="both", reps=100, threads=1)
    assert len(r.runtime_ns) == 100 and (r.runtime_ns > 0).all()
