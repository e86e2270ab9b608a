"""Where a part of a profile comes from: the provenance every profile part carries.

Its own module because every part's module (the profile, the switch draws) names it:
kept in profile.py, the parts it assembles would import the profile that imports them.
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError

#: measured (by a campaign or the paper's authors), published (a price list, data sheet or
#: paper table), reconstructed (derived under stated assumptions), calibrated (fitted to cited targets),
#: edited (changed by hand in a copy of a profile: model/edits.py).
PROVENANCE_KINDS = ("measured", "published", "reconstructed", "calibrated", "edited")


@dataclass(frozen=True)
class Provenance:
    """Where a part of a profile comes from."""

    kind: str  # measured | published | reconstructed | calibrated
    source: str

    def __post_init__(self) -> None:
        if self.kind not in PROVENANCE_KINDS:
            raise CloudnoiseError(f"provenance kind {self.kind!r} is not one of {', '.join(PROVENANCE_KINDS)}")
        if not str(self.source).strip():
            raise CloudnoiseError("provenance needs a non-empty source saying where the numbers come from")
