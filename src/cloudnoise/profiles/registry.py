"""The built-in system profiles shipped with cloudnoise, found by name.

The files live in cloudnoise/profiles/data/NAME.json (package data), with
their side files; they are written by `cloudnoise profiles build` from the
paper authors' data over the text-based reconstruction, whose noise for the
systems without data `cloudnoise profiles calibrate` fits, beside its record
data/calibration.json (not a profile).
`resolve_profile` also accepts a path, so every command that takes a system
takes either a built-in name or a profile file (e.g. one `cloudnoise model
build` wrote).
"""

from __future__ import annotations

import os
from pathlib import Path

from cloudnoise.errors import CloudnoiseError
from cloudnoise.suggest import did_you_mean
from cloudnoise.model.profile import SystemProfile, load_profile

DATA_DIR = Path(__file__).parent / "data"
RECORD_NAME = "calibration"  # data/calibration.json: the calibration record, not a profile


def builtin_names() -> list[str]:
    """Names of the built-in profiles, sorted."""
    return sorted(p.stem for p in DATA_DIR.glob("*.json") if p.stem != RECORD_NAME)


def load_builtin(name: str) -> SystemProfile:
    """The built-in profile `name`; an unknown name gets a did-you-mean error."""
    path = DATA_DIR / f"{name}.json"
    if name == RECORD_NAME or not path.is_file():
        raise CloudnoiseError(
            f"no built-in profile {name!r}{did_you_mean(name, builtin_names())} "
            "(see `cloudnoise profiles list`, or pass a profile file path)"
        )
    return load_profile(path)


def resolve_profile(name_or_path: str | os.PathLike[str]) -> SystemProfile:
    """A built-in profile by name, or a profile file by path (anything with a / or ending in .json)."""
    text = str(name_or_path)
    if text.endswith(".json") or "/" in text or Path(text).is_file():
        return load_profile(text)
    if text not in builtin_names() and Path(text).is_dir():
        # A folder where a profile file belongs (a campaign, say): name what it is.
        raise CloudnoiseError(f"{text}: is a directory, not a profile; give a built-in name (see `cloudnoise "
                              "profiles list`) or a profile file (`cloudnoise model build CAMPAIGN -o FILE`)")
    return load_builtin(text)


def load_all_builtin() -> list[SystemProfile]:
    """Every built-in profile, in name order."""
    return [load_builtin(n) for n in builtin_names()]
