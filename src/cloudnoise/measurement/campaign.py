"""A campaign directory: everything measured on one system, kept sample by sample.

Layout::

    CAMPAIGN/
      metadata.json           hosts, CPU, MPI, timer, labels, cloudnoise version,
                              and per experiment: plan, launch commands, start/end,
                              complete (true/false)
      summary.json            Table II form over all experiments
      <experiment>/
        raw/runNN-partKK.rankR.bin|info   what the probes wrote (source of truth)
        logs/runNN-partKK.log             launcher output
        samples.parquet       every sample, one row each
        summary.json          the rows printed by `cloudnoise measure`
        os_noise.trace        (os-noise) start<TAB>duration in ns per detour

metadata.json is rewritten atomically after every launch, so a killed run
leaves a consistent file with ``complete: false``.
"""

from __future__ import annotations

import platform
import socket
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from cloudnoise import output_files
from cloudnoise.version import __version__
from cloudnoise.measurement.campaign_files import read_metadata


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def cpu_model() -> str:
    """The launching host's CPU model name."""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a killed process never leaves half a file), with the user's umask."""
    output_files.write_json(path, data, allow_nan=True, sort_keys=False, default=str)


class Campaign:
    """A campaign directory and its metadata."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.meta_path = root / "metadata.json"
        if self.meta_path.exists():
            self.meta: dict[str, Any] = read_metadata(root)
        else:
            self.meta = {
                "cloudnoise_version": __version__,
                "created": utc_now(),
                "launch_host": socket.gethostname(),
                "cpu_model": cpu_model(),
                "os": f"{platform.system()} {platform.release()}",
                "labels": {},
                "experiments": {},
                "complete": False,
            }

    def save(self) -> None:
        exps = self.meta.get("experiments", {})
        self.meta["complete"] = bool(exps) and all(e.get("complete") for e in exps.values())
        write_json(self.meta_path, self.meta)

    def experiment(self, name: str) -> dict[str, Any] | None:
        return self.meta.get("experiments", {}).get(name)

    def exp_dir(self, name: str) -> Path:
        return self.root / name

    def prefix(self, name: str, run: int, part: int) -> Path:
        return self.exp_dir(name) / "raw" / f"run{run:02d}-part{part:02d}"

    def parts(self, name: str, run: int) -> list[Path]:
        """Prefixes of the launches already made for one run, in order."""
        raw = self.exp_dir(name) / "raw"
        found = sorted({p.name.split(".rank")[0] for p in raw.glob(f"run{run:02d}-part*.rank*.info")})
        return [raw / f for f in found]
