"""What a campaign lacks, said in the report instead of silently left out.

A figure or a Table II row appears only when its data is there; an
interrupted or damaged campaign would otherwise give a report with parts
missing and no word why. Each gap names the campaign, the experiment, what
is missing and what to run to fill it.
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.report.data import CampaignData


@dataclass(frozen=True)
class Gap:
    """One missing part of a campaign."""

    campaign: str
    experiment: str
    problem: str
    fix: str

    @property
    def text(self) -> str:
        where = f"{self.campaign}: {self.experiment}" if self.experiment else self.campaign
        return f"{where}: {self.problem}; {self.fix}"

    def to_dict(self) -> dict[str, str]:
        return {"campaign": self.campaign, "experiment": self.experiment, "problem": self.problem, "fix": self.fix}


def campaign_gaps(c: CampaignData) -> list[Gap]:
    """Every part of campaign `c` that is listed but incomplete or missing."""
    experiments = c.meta.get("experiments") or {}
    root = c.root
    if not experiments:
        return [Gap(c.name, "", "no experiment was measured into this campaign, so it adds nothing to the report",
                    f"measure into it: cloudnoise measure latency --out {root}")]
    gaps = []
    for name, exp in experiments.items():
        resume = f"continue it: cloudnoise measure {name} --out {root} --resume"
        # a file, or a folder of Parquet parts written while a long measurement streams
        samples = root / name / "samples.parquet"
        has_samples = samples.is_file() or (samples.is_dir() and any(samples.glob("*.parquet")))
        has_summary = name in c.experiments
        if not exp.get("complete"):
            problem = ("interrupted before it finished; what it saved is shown" if has_samples and has_summary
                       else "interrupted before any sample was saved; nothing of it is shown")
            gaps.append(Gap(c.name, name, problem, resume))
        elif not has_samples:
            gaps.append(Gap(c.name, name, f"its samples ({name}/samples.parquet) are missing; nothing of it is shown",
                            f"measure it again: cloudnoise measure {name} --out {root}"))
        elif not has_summary:
            gaps.append(Gap(c.name, name, f"its summary ({name}/summary.json) is missing; nothing of it is shown",
                            f"rebuild it: cloudnoise measure {name} --out {root} --resume"))
        elif name == "os-noise" and not (root / name / "os_noise.trace").is_file():
            gaps.append(Gap(c.name, name, "its detour trace (os-noise/os_noise.trace) is missing",
                            f"measure it again: cloudnoise measure os-noise --out {root}"))
    return gaps
