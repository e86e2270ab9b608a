"""`cloudnoise.load_profile`, `cloudnoise.copy_profile`: the profiles stage's public functions.

A profile is a built-in name (`cloudnoise profiles list`) or a profile file
(docs/profile-format.md); `cloudnoise/__init__.py` exports these functions as
they are, so their signatures are stated here only.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile


def load_profile(name_or_file: str | os.PathLike[str]) -> SystemProfile:
    """A system profile: a built-in name (`cloudnoise profiles list`) or a
    profile file (`cloudnoise model build` writes them, docs/profile-format.md).

    Returns a SystemProfile: the LogGOPS parameters per size class, the noise
    models, prices and where each figure came from. An unknown name raises
    CloudnoiseError with the closest built-in name."""
    from cloudnoise.profiles.registry import resolve_profile

    return resolve_profile(name_or_file)


def copy_profile(name_or_file: str | os.PathLike[str] | SystemProfile, folder: str | os.PathLike[str]) -> Path:
    """`cloudnoise profiles copy`: a self-contained copy of a profile in `folder`
    (made if needed), to edit or to send: its JSON, byte for byte, and every
    side file it names (noise samples, OS-noise trace, switch-draw samples)
    under the same names relative to the JSON, so the copy loads from
    anywhere. `name_or_file` is a built-in name, a profile file or a
    SystemProfile read from one.

    Returns the copied JSON's path (what `load_profile` takes). A file of the
    same name with other bytes in `folder` is never overwritten, and a
    profile missing a side file raises CloudnoiseError naming it."""
    from cloudnoise.profiles.copy import copy_files
    from cloudnoise.profiles.registry import resolve_profile

    profile = name_or_file if not isinstance(name_or_file, (str, os.PathLike)) else resolve_profile(name_or_file)
    return copy_files(profile, Path(folder)).profile
