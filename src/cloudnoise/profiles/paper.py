"""What the paper publishes about its systems, copied verbatim (Tables I and II).

Source: D. De Sensi, T. De Matteis, K. Taranov, S. Di Girolamo, T. Rahn and
T. Hoefler, "Noise in the Clouds: Influence of Network Performance
Variability on Application Scalability", SC22 (shared/papers/noise-in-the-clouds.txt).

These numbers are the ground truth the built-in profiles are generated from
(cloudnoise.profiles.reconstruct) and the tests check against.  None means the
paper prints N.A. (or does not report the figure for that instance type).
"""

from __future__ import annotations

from dataclasses import dataclass

PAPER = "De Sensi et al., Noise in the Clouds, SC22"
PRICE_DATE = "2022-07-18"
PRICE_REGION = "East US"


@dataclass(frozen=True)
class TableIRow:
    """One row of Table I."""

    provider: str
    kind: str  # as printed: Normal, HPC, HPC (Metal), HPC (200 Gb/s)
    instance_type: str | None
    cpu: str
    memory_gb: float
    committed_usd: float | None
    on_demand_usd: float | None
    bandwidth_gbit_s: float
    network: str
    routing: str | None
    transport: str | None


@dataclass(frozen=True)
class TableIIColumn:
    """One column of Table II: same rack, then different racks (None = N.A.).

    Each tuple is (min latency us, mean latency us, max bandwidth Gb/s, mean bandwidth Gb/s).
    """

    same_rack: tuple[float, float, float, float]
    different_racks: tuple[float | None, float | None, float | None, float | None]


_XEON_8124M = "2x18C Intel Xeon Platinum 8124M @ 3GHz"
_CASCADE = "2x15C Intel Cascade Lake @ 3.10GHz"
_NA4 = (None, None, None, None)

# Table I, keyed by profile name.
TABLE_I: dict[str, TableIRow] = {
    "aws-normal": TableIRow("AWS", "Normal", "c5.18xlarge", _XEON_8124M, 144, 1.34, 3.06, 25,
                            "Fat Tree", "ECMP", "SRD"),
    "aws-hpc-metal": TableIRow("AWS", "HPC (Metal)", "c5n.metal", _XEON_8124M, 192, 1.475, 3.88, 100,
                               "Fat Tree", "ECMP", "SRD"),
    "aws-hpc": TableIRow("AWS", "HPC", "c5n.18xlarge", _XEON_8124M, 192, 1.475, 3.88, 100,
                         "Fat Tree", "ECMP", "SRD"),
    "azure-normal": TableIRow("Azure", "Normal", "F72s_v2", "36C Intel Xeon Platinum 8370C/8272CL/8168", 144,
                              1.116, 3.045, 30, "Fat Tree", "ECMP", None),
    "azure-hpc": TableIRow("Azure", "HPC", "HC44rs", "2x22C Intel Xeon Platinum 8168 @ 2.70GHz", 352,
                           2.218, 3.168, 100, "Non-Blocking Fat Tree", "Static/Adaptive", "InfiniBand"),
    "azure-hpc-200": TableIRow("Azure", "HPC (200 Gb/s)", "HB120rs_v2", "2x60C AMD Epyc 7V12 @ 2.45 GHz", 456,
                               1.8, 3.6, 200, "Non-Blocking Fat Tree", "Static/Adaptive", "InfiniBand"),
    "gcp-normal": TableIRow("GCP", "Normal", "c2-standard-60", _CASCADE, 240, 1.25, 3.1321, 32,
                            "Jupiter (3:1 Blocking Fat Tree)", "ECMP", "TCP/IP + Intel QuickData"),
    "gcp-hpc": TableIRow("GCP", "HPC", "c2-standard-60", _CASCADE, 240, 2.148, 4.03, 100,
                         "Jupiter (3:1 Blocking Fat Tree)", "ECMP", "TCP/IP + Intel QuickData"),
    "oracle-normal": TableIRow("Oracle", "Normal", "VM.Optimized3.Flex", "18C Intel Xeon Gold 6354 @ 3GHz", 256,
                               None, 1.188, 40, "Non-Blocking Fat Tree", None, None),
    "oracle-hpc-metal": TableIRow("Oracle", "HPC (Metal)", "BM.Optimized3.36", "2x18C Intel Xeon Gold 6354 @ 3GHz",
                                  512, None, 2.712, 100, "Non-Blocking Fat Tree", None, "RoCEv2"),
    "daint": TableIRow("Daint", "HPC (Metal)", None, "2x18C Intel Xeon E5-2695 v4 @ 2.10GHz", 64, 1.02, 1.73, 82,
                       "Cray Aries (Dragonfly)", "Per-Packet Adaptive", "FMA"),
    "alps": TableIRow("Alps", "HPC (Metal)", None, "2x64C AMD EPYC 7742 @ 2.25GHz", 256, None, None, 100,
                      "HPE Cray Slingshot (Dragonfly)", "Per-Packet Adaptive", "RoCEv2"),
    "deep-est": TableIRow("DEEP-EST", "HPC (Metal)", None, "2x12C Intel Xeon Gold 6146 @ 3.20GHz", 192, None, None,
                          100, "Mellanox InfiniBand EDR (Fat Tree)", "Static/Adaptive", "Infiniband"),
}

# Table II, keyed by profile name.  AWS HPC (non-metal, c5n.18xlarge) has no column.
# The column order in the paper is AWS Normal, AWS HPC (Metal), Azure Normal, HPC,
# HPC (200 Gb/s), GCP Normal, HPC, Oracle Normal, HPC (Metal), Alps, Daint, DEEP-EST.
TABLE_II: dict[str, TableIIColumn] = {
    "aws-normal": TableIIColumn((19.28, 23.11, 27.32, 27.02), (22.46, 27.57, 30.52, 30.14)),
    "aws-hpc-metal": TableIIColumn((16.79, 18.97, 78.74, 70.84), (17.20, 19.26, 77.72, 67.02)),
    "azure-normal": TableIIColumn((26.11, 29.59, 7.42, 7.28), _NA4),
    "azure-hpc": TableIIColumn((1.50, 1.65, 93.92, 93.51), _NA4),
    "azure-hpc-200": TableIIColumn((1.70, 1.84, 194.48, 194.25), _NA4),
    "gcp-normal": TableIIColumn((9.42, 10.64, 45.45, 38.82), (12.39, 15.02, 34.84, 30.67)),
    "gcp-hpc": TableIIColumn((8.46, 9.98, 75.75, 68.45), (14.90, 16.66, 70.11, 65.71)),
    "oracle-normal": TableIIColumn((24.68, 26.43, 11.20, 8.39), _NA4),
    "oracle-hpc-metal": TableIIColumn((1.66, 1.72, 97.53, 97.50), _NA4),
    "alps": TableIIColumn((2.13, 3.01, 97.14, 96.32), (2.66, 2.90, 96.15, 96.00)),
    "daint": TableIIColumn((1.19, 2.39, 74.37, 73.93), (1.19, 3.33, 75.24, 74.59)),
    "deep-est": TableIIColumn((1.19, 1.70, 90.46, 90.27), (1.41, 1.93, 90.49, 90.26)),
}

# Operating systems (Sec. II-A).
OS: dict[str, str] = {
    "AWS": "Amazon Linux 2",
    "Azure": "CentOS 7.7",
    "GCP": "CentOS 7.9",
    "Oracle": "Oracle Linux 7.9",
    "Daint": "Cray Linux Environment (SLES 15.2 based)",
    "Alps": "Cray Linux Environment (SLES 15.2 based)",
    "DEEP-EST": "Rocky Linux 8.5",
}
