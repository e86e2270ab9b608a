"""`cloudnoise.load_profile`: the profiles stage's public functions.

A profile is a built-in name (`cloudnoise profiles list`) or a profile file
(docs/profile-format.md); `cloudnoise/__init__.py` exports these functions as
they are, so their signatures are stated here only.
"""

from __future__ import annotations

import os
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
