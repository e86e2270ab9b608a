"""A copied profile that was edited says so, part by part.

`cloudnoise profiles copy` writes the copy with a `copied_from` record: the
source profile's name and, for every part that carries a provenance, the
SHA-256 of its values as copied (the part's JSON, every `provenance` inside
it left out, keys sorted). When the copy is loaded, a part whose values no
longer hash to the record's was edited by hand: its provenance becomes
`edited`, its source saying from which profile's values and of which kind
("edited from aws-hpc-metal's published values (sha256 3f2a...)"), so an
edited L is never shown as the paper's published one. A copy of a copy
keeps the first record: its parts are compared with what was published.
Side files (noise samples, traces) are not hashed: a part that names a new
file is edited, one whose file was overwritten in place is not seen.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from cloudnoise.errors import CloudnoiseError

COPIED_FROM = "copied_from"
# The parts of a profile that carry a provenance, as paths into its JSON.
PARTS = ("hardware", "compute", "prices", "table2", "loggops", "latency_noise", "bandwidth_noise", "os_noise",
         "switch_draws", "different_racks.loggops", "different_racks.latency_noise",
         "different_racks.bandwidth_noise", "different_racks.os_noise")
DIGITS_SHOWN = 12


def _get(data: dict[str, Any], path: str) -> Any:
    node: Any = data
    for key in path.split("."):
        if not isinstance(node, dict) or node.get(key) is None:
            return None
        node = node[key]
    return node


def _without_provenance(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _without_provenance(v) for k, v in value.items() if k != "provenance"}
    if isinstance(value, list):
        return [_without_provenance(v) for v in value]
    return value


def values_sha256(part: dict[str, Any]) -> str:
    """The SHA-256 of a part's values: its JSON without any provenance, keys sorted."""
    text = json.dumps(_without_provenance(part), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def copy_record(data: dict[str, Any]) -> dict[str, Any]:
    """The `copied_from` record of a copy of the profile `data` (its JSON object):
    the record `data` already has (a copy of a copy), else a new one."""
    if isinstance(data.get(COPIED_FROM), dict):
        return data[COPIED_FROM]
    hashes = {path: values_sha256(part) for path in PARTS if isinstance(part := _get(data, path), dict)}
    return {"profile": str(data.get("name", "")), "values_sha256": hashes}


def mark_edits(data: dict[str, Any], where: str) -> dict[str, Any]:
    """`data` (a profile's JSON object) with the provenance of every part whose values
    differ from its `copied_from` record made `edited` (a new object; `data` as is
    when it holds no record)."""
    record = data.get(COPIED_FROM)
    if record is None:
        return data
    if not isinstance(record, dict) or not isinstance(record.get("values_sha256"), dict):
        raise CloudnoiseError(f"{where}: {COPIED_FROM} must be an object with profile and values_sha256 "
                              "(written by `cloudnoise profiles copy`); remove it to load the profile as written")
    source = str(record.get("profile") or "the source profile")
    out = copy.deepcopy(data)
    for path, digest in record["values_sha256"].items():
        part = _get(out, path)
        if not isinstance(part, dict) or not isinstance(part.get("provenance"), dict):
            continue
        prov = part["provenance"]
        if prov.get("kind") == "edited" or values_sha256(part) == digest:
            continue
        part["provenance"] = {
            "kind": "edited",
            "source": f"edited from {source}'s {prov.get('kind')} values (sha256 {str(digest)[:DIGITS_SHOWN]}), "
                      f"which came from: {prov.get('source')}",
        }
    return out


def edited_parts(data: dict[str, Any]) -> list[str]:
    """The parts of a loaded profile's JSON whose provenance says edited."""
    return [path for path in PARTS if isinstance(part := _get(data, path), dict)
            and isinstance(part.get("provenance"), dict) and part["provenance"].get("kind") == "edited"]
