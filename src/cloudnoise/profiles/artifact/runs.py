"""Which run of the paper's artifact the authors used per system and placement.

The artifact's `description.csv` (the authors' data repository,
DanieleDeSensi/cloud_noise_data) maps (provider, instance type, placement,
time of day) to a run folder; their `simulations/simulate.py` reads the
"Day" rows. A run is stored as `FOLDER/RUN.tar.xz`; some runs named there are
missing from the stored copy (its README lists them), and then another run
of the same folder stands in, said in the result.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

from cloudnoise.errors import CloudnoiseError, shown

# cloudnoise profile -> the authors' (provider, instance type) in description.csv.
SYSTEMS: dict[str, tuple[str, str]] = {
    "aws-hpc-metal": ("AWS", "HPC (Metal)"),
    "aws-hpc": ("AWS", "HPC"),
    "aws-normal": ("AWS", "Normal"),
    "azure-hpc": ("Azure", "HPC"),
    "azure-hpc-200": ("Azure", "HPC (200 Gb/s)"),
    "azure-normal": ("Azure", "Normal"),
    "gcp-hpc": ("GCP", "HPC"),
    "gcp-normal": ("GCP", "Normal"),
    "daint": ("Daint", "HPC (Metal)"),
    "alps": ("Alps", "HPC (Metal)"),
    "deep-est": ("DEEP-EST", "HPC (Metal)"),
    "oracle-hpc-metal": ("Oracle", "HPC (Metal)"),
    "oracle-normal": ("Oracle", "Normal"),
}
PLACEMENT_NAMES = {"same-rack": "Same Rack", "different-racks": "Different Racks"}


@dataclass(frozen=True)
class RunChoice:
    """The run used for one system and placement, and why."""

    named: str | None  # the run description.csv names ("folder/run"), None where it names none
    used: Path | None  # the archive used, None where no run of the system is stored
    substituted: bool  # the named run is missing and another of its folder stands in

    def provenance(self, artifact: Path) -> str:
        if self.used is None:
            return f"no stored run (description.csv names {self.named or 'none'})"
        used = self.used.relative_to(artifact).as_posix()
        if self.substituted:
            return f"{used} (substituting {self.named}, which the stored copy lacks)"
        return f"{used} (the run description.csv names)"


def read_description(artifact: Path) -> dict[tuple[str, str, str, str], str]:
    """description.csv's rows: (provider, instance, placement, time) -> run path relative to the artifact."""
    path = artifact / "description.csv"
    try:
        with open(path, newline="", encoding="utf-8") as fh:
            rows = list(csv.reader(fh))
    except OSError as err:
        raise CloudnoiseError(f"{shown(path)}: cannot read the artifact's description ({err.strerror}); "
                              "give the artifact's folder") from None
    out = {}
    for i, row in enumerate(rows, 1):
        if len(row) != 5:
            raise CloudnoiseError(f"{shown(path)}:{i}: expected 5 comma-separated fields, got {len(row)}")
        run = row[4].removeprefix("../data/")
        out[(row[0], row[1], row[2], row[3])] = run
    return out


def choose_run(artifact: Path, profile: str, placement: str, time_of_day: str = "Day") -> RunChoice:
    """The network run for a system and placement: the one named, else the
    newest stored run of the same folder (the Day row, as the authors simulated)."""
    provider, instance = SYSTEMS[profile]
    named = read_description(artifact).get((provider, instance, PLACEMENT_NAMES[placement], time_of_day))
    if named is None:
        return RunChoice(None, None, False)
    archive = artifact / f"{named}.tar.xz"
    if archive.is_file():
        return RunChoice(named, archive, False)
    folder = archive.parent
    stored = sorted(p for p in folder.glob("*.tar.xz") if _is_network_run(p)) if folder.is_dir() else []
    return RunChoice(named, stored[-1] if stored else None, bool(stored))


def _is_network_run(archive: Path) -> bool:
    # DGEMM-only runs are a few kB; a network run holds the noise files (MBs).
    return archive.stat().st_size > 100_000
