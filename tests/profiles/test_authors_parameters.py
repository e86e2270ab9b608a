"""The authors' simulation parameters (profiles/authors_parameters.py): the
picoseconds their script passed to LogGOPSim, checked against values worked
out by hand from loggp_params.py's rows (us x 10^6, truncated)."""

from __future__ import annotations

import pytest

from cloudnoise.profiles.authors_parameters import authors_parameters, authors_profiles
from cloudnoise.profiles.registry import builtin_names


def test_daint_rows_in_picoseconds():
    near = authors_parameters("daint", "same-rack")
    far = authors_parameters("daint", "different-racks")
    assert (near.L_ps, near.o_ps, near.g_ps, near.G_ps_per_byte, near.S_bytes) == (500_000, 0, 6_000_000, 110, 4096)
    assert (far.L_ps, far.G_ps_per_byte) == (500_000, 140)
    assert near.nodes_per_switch == far.nodes_per_switch == 16


def test_aws_metal_gap_differs_between_placements():
    assert authors_parameters("aws-hpc-metal", "same-rack").g_ps == 0
    assert authors_parameters("aws-hpc-metal", "different-racks").g_ps == 22_000_000
    assert authors_parameters("aws-hpc-metal", "different-racks").S_bytes == 65536


@pytest.mark.parametrize("name, L_ps, G_ps, per_switch", [
    ("alps", 1_900_000, 79, 16), ("deep-est", 1_600_000, 89, 32), ("oracle-hpc-metal", 1_600_000, 100, 8),
    ("gcp-hpc", 23_000_000, 390, 22), ("azure-hpc", 1_300_000, 86, 1), ("azure-hpc-200", 1_700_000, 46, 1),
    ("azure-normal", 30_000_000, 1100, 1), ("aws-normal", 21_700_000, 400, 32), ("gcp-normal", 20_000_000, 420, 22),
])
def test_same_rack_rows(name, L_ps, G_ps, per_switch):
    p = authors_parameters(name)
    assert (p.L_ps, p.G_ps_per_byte, p.nodes_per_switch, p.O_ps_per_byte) == (L_ps, G_ps, per_switch, 0)


def test_every_row_names_a_builtin_profile_and_unsimulated_systems_have_none():
    assert set(authors_profiles()) <= set(builtin_names())
    assert authors_parameters("aws-hpc") is None
    assert authors_parameters("oracle-normal") is None


def test_unknown_placement_is_refused():
    with pytest.raises(ValueError, match="placement"):
        authors_parameters("daint", "same-slot")
