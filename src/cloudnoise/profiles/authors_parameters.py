"""The LogGOPS parameters the paper's authors simulated each system with.

Source: the paper's artifact code, `simulations/loggp_params.py` of
github.com/DanieleDeSensi/cloud_noise (MIT licence, commit 49563ff), the rows
its `simulations/simulate.py` uses (suffix "x1", `normalize = True`): L, o, g in
microseconds, G in microseconds per byte, S in bytes, O = 0. They are the
authors' hand-tuned values (the paper's Sec. IV: fitted so the simulator
matched their collective runs), not Netgauge's estimates; cloudnoise keeps them
as published data, to simulate as the authors did and to compare its own
estimates with.

How the authors' script turns them into simulator arguments (and so how this
module does): every time is truncated to whole picoseconds with
`int(value * 1000000)` in double precision (for the values below the
truncation changes none); `nodes_per_switch` decides which of two ranks' messages are "far"
(rank // nodes_per_switch differs). For a different-racks simulation the
script passes L and G of both placements (near and far) but o, g and S of the
different-racks row, since its loop over placements leaves the last row's o,
g and S in place; only AWS HPC (Metal) has a g that differs between its rows.

Systems without a row: AWS HPC (c5n.18xlarge, the non-metal instance) and
Oracle Normal, which the authors did not simulate.
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.model.profile import LogGOPS
from cloudnoise.model.provenance import Provenance

SOURCE = ("github.com/DanieleDeSensi/cloud_noise (MIT), commit 49563ff, simulations/loggp_params.py, "
          "get_loggp_params(provider, instance, 'x1', placement), as used by simulations/simulate.py")

PLACEMENTS = ("same-rack", "different-racks")


@dataclass(frozen=True)
class AuthorsRow:
    """One row of the authors' table, as printed there (microseconds, bytes)."""

    L_us: float
    o_us: float
    g_us: float
    G_us_per_byte: float
    S_bytes: int


@dataclass(frozen=True)
class AuthorsLogGOPS:
    """The parameters of one system and placement, in the authors' picoseconds."""

    profile: str
    placement: str
    L_ps: int
    o_ps: int
    g_ps: int
    G_ps_per_byte: int
    O_ps_per_byte: int
    S_bytes: int
    nodes_per_switch: int
    row: AuthorsRow


# cloudnoise profile name -> (same-rack row, different-racks row, nodes per switch).
# Transcribed from loggp_params.py (provider, instance) and simulate.py's nodes_per_switch.
_TABLE: dict[str, tuple[AuthorsRow, AuthorsRow, int]] = {
    # ("AWS", "HPC (Metal)"): g 0 in the same rack, 22 us across racks.
    "aws-hpc-metal": (AuthorsRow(28, 0, 0, 0.00017, 65536), AuthorsRow(28, 0, 22, 0.0003, 65536), 32),
    # ("AWS", "Normal"): one row for both placements.
    "aws-normal": (AuthorsRow(21.7, 2, 22, 0.0004, 32768), AuthorsRow(21.7, 2, 22, 0.0004, 32768), 32),
    # ("GCP", "HPC") and ("GCP", "Normal"): one row each.
    "gcp-hpc": (AuthorsRow(23, 0, 0, 0.00039, 65536), AuthorsRow(23, 0, 0, 0.00039, 65536), 22),
    "gcp-normal": (AuthorsRow(20, 2, 3.99, 0.00042, 65536), AuthorsRow(20, 2, 3.99, 0.00042, 65536), 22),
    # ("Azure", ...): one row each; every other provider's nodes_per_switch is 1.
    "azure-hpc": (AuthorsRow(1.3, 0.15, 1.5, 0.000086, 4096), AuthorsRow(1.3, 0.15, 1.5, 0.000086, 4096), 1),
    "azure-hpc-200": (AuthorsRow(1.7, 0, 1, 0.000046, 4096), AuthorsRow(1.7, 0, 1, 0.000046, 4096), 1),
    "azure-normal": (AuthorsRow(30, 5, 0.18, 0.0011, 131072), AuthorsRow(30, 5, 0.18, 0.0011, 131072), 1),
    # ("Daint", "HPC (Metal)"), ("Alps", ...), ("DEEP-EST", ...), ("Oracle", "HPC (Metal)").
    "daint": (AuthorsRow(0.5, 0.0, 6, 0.00011, 4096), AuthorsRow(0.5, 0.0, 6, 0.00014, 4096), 16),
    "alps": (AuthorsRow(1.9, 0.23, 0, 0.000079, 4096), AuthorsRow(1.9, 0.23, 0, 0.000092, 4096), 16),
    "deep-est": (AuthorsRow(1.6, 0.35, 5.5, 0.000089, 4096), AuthorsRow(1.6, 0.35, 5.5, 0.000089, 4096), 32),
    "oracle-hpc-metal": (AuthorsRow(1.6, 0.15, 5, 0.0001, 4096), AuthorsRow(1.6, 0.15, 5, 0.000105, 4096), 8),
}


# Systems the authors simulated whose network run the stored artifact lacks
# (paper-artifact/README.md: Oracle HPC's oracle-hpc/2022_07_13_* run): their
# built-in LogGOPS is still the authors' rows, and the text-based noise is
# reconstructed and calibrated around those rows (profiles/reconstruct.py).
WITHOUT_STORED_RUN = ("oracle-hpc-metal",)


def loggops_of(p: AuthorsLogGOPS) -> LogGOPS:
    """The authors' parameters of one placement as a profile's LogGOPS block
    (ns, as their script passed them to their simulator in whole ps)."""
    row = p.row
    text = (f"The authors' simulation parameters, {p.placement} row: {SOURCE}; L {row.L_us} us, o {row.o_us} us, "
            f"g {row.g_us} us, G {row.G_us_per_byte} us/B, S {row.S_bytes} B, O 0, as their script passed them "
            "(whole ps)")
    return LogGOPS(Provenance("published", text), L=p.L_ps / 1000, o=p.o_ps / 1000, g=p.g_ps / 1000,
                   G=p.G_ps_per_byte / 1000, O=0.0, S=p.S_bytes)


def authors_profiles() -> list[str]:
    """The cloudnoise profile names the authors simulated, sorted."""
    return sorted(_TABLE)


def _ps(us: float) -> int:
    # The authors' conversion, truncation included: int(x * 1000000).
    return int(us * 1000000)


def authors_parameters(profile: str, placement: str = "same-rack") -> AuthorsLogGOPS | None:
    """The authors' parameters for `profile` at `placement` ("same-rack" or
    "different-racks"), as their simulator received them; None where the
    authors did not simulate the system. For "different-racks", L and G are
    the far row's (the near row's are `authors_parameters(p, "same-rack")`),
    and o, g, S are the far row's too, as the authors' script passed them."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {PLACEMENTS}, not {placement!r}")
    entry = _TABLE.get(profile)
    if entry is None:
        return None
    near, far, per_switch = entry
    row = near if placement == "same-rack" else far
    return AuthorsLogGOPS(
        profile=profile,
        placement=placement,
        L_ps=_ps(row.L_us),
        o_ps=_ps(row.o_us),
        g_ps=_ps(row.g_us),
        G_ps_per_byte=_ps(row.G_us_per_byte),
        O_ps_per_byte=0,
        S_bytes=row.S_bytes,
        nodes_per_switch=per_switch,
        row=row,
    )
