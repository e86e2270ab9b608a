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
    newest stored run of its folder, else of the folders the same system and
    placement's other rows name (a run without network data is skipped by
    the caller through `candidates`)."""
    found = candidates(artifact, profile, placement, time_of_day)
    named = found[0]
    runs = found[1]
    if not runs:
        return RunChoice(named, None, False)
    return RunChoice(named, runs[0], named is None or runs[0] != artifact / f"{named}.tar.xz")


def candidates(artifact: Path, profile: str, placement: str, time_of_day: str = "Day"
               ) -> tuple[str | None, list[Path]]:
    """The run description.csv names, and the stored archives to try in order:
    that run, then the newest runs of its folder, then of the folders the
    system's other rows at this placement name."""
    provider, instance = SYSTEMS[profile]
    rows = read_description(artifact)
    named = rows.get((provider, instance, PLACEMENT_NAMES[placement], time_of_day))
    folders = [] if named is None else [(artifact / named).parent]
    folders += [(artifact / run).parent for (p, i, pl, _), run in sorted(rows.items())
                if (p, i, pl) == (provider, instance, PLACEMENT_NAMES[placement])]
    out: list[Path] = []
    if named is not None and (artifact / f"{named}.tar.xz").is_file():
        out.append(artifact / f"{named}.tar.xz")
    for folder in dict.fromkeys(folders):
        if folder.is_dir():
            out += [p for p in sorted(folder.glob("*.tar.xz"), reverse=True) if p not in out and _is_network_run(p)]
    return named, out


def _is_network_run(archive: Path) -> bool:
    # DGEMM-only runs are a few kB; a network run holds the noise files (MBs).
    return archive.stat().st_size > 100_000
