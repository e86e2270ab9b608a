"""Grids, displacements and the scaling rules, against answers worked out by
hand: where a message goes on a grid of another size, which way a message
to the one rank at +1 and -1 is sent, and by how much strong scaling sizes a
face."""

from __future__ import annotations

import numpy as np
import pytest

from cloudnoise.errors import CloudnoiseError
from cloudnoise.trace.events import PROC_NULL
from cloudnoise.trace.peer_rules import PeerRule, resolve_ways
from cloudnoise.trace.scaling import Scaling
from cloudnoise.trace.topology import Grid, Topology, dims_create_fixed, displacement, parse_grid, place, place_all


def test_displacements_on_a_periodic_grid() -> None:
    g = Grid((4, 3), (1, 1))
    # rank 0 = (0, 0); 4 = (1, 1); 11 = (3, 2): the shorter way round
    assert displacement(g, 0, 4).delta == (1, 1)
    assert displacement(g, 0, 11).delta == (-1, -1)
    g2 = Grid((1, 2, 2), (1, 1, 1))
    # on a periodic dimension of 2 the other rank is both +1 and -1: the way is open
    d = displacement(g2, 0, 2)
    assert d.delta == (0, 0, 0) and d.unknown == (1,)
    # to itself on a grid with one periodic dimension of one rank: +-1 along it
    assert displacement(g2, 3, 3).unknown == (0,)
    # a reordered grid maps through its members: world 3 is grid rank 0
    g3 = Grid((2, 2), (0, 0), members=(3, 2, 1, 0))
    assert displacement(g3, 3, 2).delta == (0, 1)


def test_place_and_place_all_agree() -> None:
    dims, periods = (4, 2, 3), (1, 0, 1)
    for delta in ((1, 0, 0), (0, 1, -1), (-2, -1, 1)):
        vec = place_all(delta, dims, periods)
        assert vec.tolist() == [place(delta, r, dims, periods) for r in range(24)]
    # off the edge of the non-periodic dimension: MPI_PROC_NULL
    assert place((0, 1, 0), 3, dims, periods) == PROC_NULL


def test_grid_option_and_dims_create_with_fixed_dims() -> None:
    assert parse_grid("16x16x4") == (16, 16, 4)
    for bad in ("16x", "4x0", "a", ""):
        with pytest.raises(CloudnoiseError, match="--grid"):
            parse_grid(bad)
    assert dims_create_fixed(64, (0, 1, 0)) == (8, 1, 8)
    with pytest.raises(CloudnoiseError, match="do not divide"):
        dims_create_fixed(10, (3, 0))


def test_the_new_grid_gives_its_largest_dimensions_where_the_trace_split_most() -> None:
    t = Topology(4, grid=Grid((1, 2, 2), (1, 1, 1)))
    assert t.new_dims(4, None)[0] == (1, 2, 2)  # MPI_Dims_create(4, 3) = 2x2x1, laid out as traced
    assert t.new_dims(16, None)[0] == (2, 4, 2)
    assert t.new_dims(16, (4, 2, 2))[0] == (4, 2, 2)
    with pytest.raises(CloudnoiseError, match="holds 32 ranks, not --ranks 16"):
        t.new_dims(16, (4, 4, 2))
    with pytest.raises(CloudnoiseError, match="2 dimensions, the traced grid 1x2x2 has 3"):
        t.new_dims(16, (4, 4))


def test_ways_pair_the_jth_send_with_the_jth_receive() -> None:
    open_ = PeerRule("grid", (0, 0), (1,))
    rules = [("send", 0, 5, open_), ("recv", 0, 5, open_), ("send", 0, 5, open_), ("recv", 0, 5, open_),
             ("send", 0, 6, open_), ("recv", 0, 5, PeerRule("grid", (1, 0)))]
    out = resolve_ways(rules)
    assert [r.value for r in out[:5]] == [(0, -1), (0, 1), (0, 1), (0, -1), (0, -1)]  # tag 6 has its own turns
    assert out[5] == PeerRule("grid", (1, 0))
    # every send's receiver gets a receive from the sender's side: on a ring of 5, rank r
    # sends to r-1 then r+1, and receives from r+1 then r-1
    n, dims, periods = 5, (1, 5), (1, 1)
    for s, r in ((out[0], out[1]), (out[2], out[3])):
        sent_to = s.place_all(n, dims, periods)
        from_ = r.place_all(n, dims, periods)
        assert all(from_[sent_to[k]] == k for k in range(n))
    ring = resolve_ways([("send", 0, 0, PeerRule("ring", (2,), (1,))), ("recv", 0, 0, PeerRule("ring", (2,), (1,)))])
    assert [x.value for x in ring] == [(-2,), (2,)]


def test_strong_scaling_sizes_a_face_by_the_other_dimensions() -> None:
    s = Scaling("strong", 4, 16, (1, 2, 2), (2, 4, 2))
    assert s.compute == 0.25
    # a face normal to dim 2 spans dims 0 and 1: (1/2) x (2/4)
    assert s.halo(2) == pytest.approx(0.25)
    assert s.halo(1) == pytest.approx(0.5)
    # dim 0 (one traced rank) copies dim 1's messages: prod_{j != 1} d_j / prod_{j != 0} d'_j = (1*2) / (4*2)
    assert s.halo(0, 1) == pytest.approx(0.25)
    # an edge (two dimensions moved) spans one: d_0 / d'_0
    assert s.halo((1, 2)) == pytest.approx(0.5)
    weak = Scaling("weak", 4, 16, (1, 2, 2), (2, 4, 2))
    assert weak.compute == 1.0 and weak.halo(2) == 1.0
    # weak keeps each rank's box: a face normal to dim 0 is half of dim 1's (the traced box is 1 x 1/2 x 1/2)
    assert weak.halo(0, 1) == pytest.approx(0.5)
    assert (s.collective("allreduce"), s.collective("allgather"), s.collective("alltoall")) == (1.0, 0.25, 0.0625)
    assert weak.collective("alltoall") == 1.0
    assert "compute x0.25" in s.describe() and "weak scaling" in weak.describe()


def test_place_all_is_vectorised_over_every_rank() -> None:
    vec = PeerRule("offset", (3,)).place_all(5, (), ())
    assert vec.tolist() == [3, 4, PROC_NULL, PROC_NULL, PROC_NULL]
    assert np.array_equal(PeerRule("ring", (-1,)).place_all(4, (), ()), np.array([3, 0, 1, 2]))
