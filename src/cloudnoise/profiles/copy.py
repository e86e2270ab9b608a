"""`cloudnoise profiles copy`: a profile that travels, its JSON and every side file.

A profile names its data files (noise samples, an OS-noise trace, switch-draw
samples) relative to its JSON, inside the JSON's folder: the one rule of
`model/profile.py` (`side_file`). So a copy of the JSON alone, or of a
profile `profiles show --json` printed, finds nothing beside it. This copies
the JSON byte for byte and each side file under the same relative name into
one folder, where the copy loads from anywhere and can be edited.

The JSON is the source's with one key added, `copied_from`: the source's
name and a hash of each part's values (model/edits.py), so that a part the
user edits loads as `edited` from its source, never as the source's
`published` or `measured` values.

The side files go first and the JSON last, each atomically: an interrupted
copy leaves no JSON, or a JSON whose missing file the loader names.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.model.profile import SystemProfile, side_file
from cloudnoise.output_files import atomic_path


@dataclass(frozen=True)
class ProfileCopy:
    """What `copy_profile` wrote: the profile's JSON and its side files (absolute paths)."""

    profile: Path
    side_files: tuple[Path, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, object]:
        """What `cloudnoise profiles copy --json` prints."""
        return {"profile": str(self.profile), "side_files": [str(p) for p in self.side_files]}


def _same_file(a: Path, b: Path) -> bool:
    return a.exists() and b.exists() and os.path.samefile(a, b)


def _place(source: Path, target: Path, content: bytes | None = None) -> None:
    """`source` (or `content`, what is written for it) copied to `target`; an existing
    different file is never overwritten."""
    if target.exists():
        if target.is_file() and target.read_bytes() == (source.read_bytes() if content is None else content):
            return  # copied before: the same bytes
        raise CloudnoiseError(f"{shown(target)}: exists and differs from {shown(source)}; copy into another "
                              "folder, or remove it first")
    target.parent.mkdir(parents=True, exist_ok=True)
    with atomic_path(target) as tmp:
        if content is None:
            shutil.copyfile(source, tmp)
        else:
            Path(tmp).write_bytes(content)


def _with_record(source: Path) -> bytes:
    """The source profile's JSON with its `copied_from` record (model/edits.py)."""
    from cloudnoise.input_files import read_json
    from cloudnoise.model.edits import COPIED_FROM, copy_record

    data = read_json(source, "profile file")
    data = {**{k: v for k, v in data.items() if k != COPIED_FROM}, COPIED_FROM: copy_record(data)}
    return (json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


def copy_files(profile: SystemProfile, folder: Path) -> ProfileCopy:
    """Copies a loaded `profile` (read from a file: a built-in or a profile file) into
    `folder`, made if needed: its JSON under its own file name, its side files beside it."""
    if not profile.origin or profile.base_dir is None:
        raise CloudnoiseError(f"{profile.where}: not read from a file, so it has no files to copy; "
                              "save it with cloudnoise.model.profile.save_profile")
    source = Path(profile.origin)
    if folder.exists() and not folder.is_dir():
        raise CloudnoiseError(f"{shown(folder)}: not a folder; give the folder to copy the profile into")
    if folder.is_dir() and _same_file(folder, profile.base_dir):
        raise CloudnoiseError(f"{shown(folder)}: the profile's own folder; give another folder to copy it into")
    folder.mkdir(parents=True, exist_ok=True)
    copied = []
    for name, what in profile.side_files():
        found = side_file(profile.base_dir, name, what, profile.where)  # there, inside its folder: checked at load
        target = folder / name
        _place(found, target)
        copied.append(target.resolve())
    target = folder / source.name
    _place(source, target, _with_record(source))
    return ProfileCopy(target.resolve(), tuple(copied))
