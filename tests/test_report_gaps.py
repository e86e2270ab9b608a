"""The report's missing-data section (report/gaps.py) names what a campaign lacks, and only that."""

from __future__ import annotations

from pathlib import Path

from cloudnoise.report.data import CampaignData
from cloudnoise.report.gaps import campaign_gaps


def _campaign(root: Path, complete: bool = True) -> CampaignData:
    meta = {"experiments": {"latency-noise": {"complete": complete}}}
    return CampaignData(root=root, name="c", meta=meta, summary={}, experiments={"latency-noise": {"results": []}})


def test_streamed_samples_folder_is_not_reported_missing(tmp_path: Path) -> None:
    parts = tmp_path / "latency-noise" / "samples.parquet"
    parts.mkdir(parents=True)
    (parts / "part-000000.parquet").write_bytes(b"PAR1")
    assert campaign_gaps(_campaign(tmp_path)) == []


def test_single_samples_file_is_not_reported_missing(tmp_path: Path) -> None:
    (tmp_path / "latency-noise").mkdir()
    (tmp_path / "latency-noise" / "samples.parquet").write_bytes(b"PAR1")
    assert campaign_gaps(_campaign(tmp_path)) == []


def test_missing_or_empty_samples_are_named_with_the_fix(tmp_path: Path) -> None:
    gaps = campaign_gaps(_campaign(tmp_path))
    assert len(gaps) == 1 and "samples" in gaps[0].problem and "cloudnoise measure latency-noise" in gaps[0].fix
    (tmp_path / "latency-noise" / "samples.parquet").mkdir(parents=True)  # a folder with no part in it
    assert len(campaign_gaps(_campaign(tmp_path))) == 1


def test_interrupted_experiment_says_resume(tmp_path: Path) -> None:
    gaps = campaign_gaps(_campaign(tmp_path, complete=False))
    assert len(gaps) == 1 and "interrupted" in gaps[0].problem and "--resume" in gaps[0].fix
