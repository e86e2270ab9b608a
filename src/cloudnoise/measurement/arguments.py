"""What a user may ask `measure` for, checked: message sizes, counts, intervals,
labels and the campaign folder. The CLI passes the text it was given (comma
lists such as ``1,1K,16MiB``), the Python API lists of numbers or quantities;
both end here, so `cloudnoise measure latency --sizes 1MB` and
`cloudnoise.measure("latency", sizes=["1MB"])` mean the same bytes (docs/reference/conventions.md).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from pathlib import Path

from cloudnoise import limits
from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.units import parse_size_bytes

DISTANCES = ("same-rack", "different-racks", "unknown")
# What the probes take: an MPI count is a C int; more iterations than this
# would run for weeks; burst intervals of at most an hour.
MAX_PROBE_MESSAGE_BYTES = 2**31 - 1
MAX_ITERATIONS = 10**9
MAX_INTERVAL_S = 3600.0
MAX_CONNECTIONS = 4096


def _items(value: str | Iterable[object]) -> list[object]:
    """A comma list (`"1,1K"`) or any iterable of items, as a list; a lone number is one item."""
    if isinstance(value, str):
        return [t.strip() for t in value.split(",") if t.strip()]
    if isinstance(value, (int, float)):
        return [value]
    return list(value)


def parse_size(text: str | int) -> int:
    """One probe message size in bytes, in the units every command reads
    (docs/reference/conventions.md): `1024`, `64KiB`, `64K` (binary), `1MB` (10^6); at most what
    an MPI count holds (2^31-1)."""
    size = parse_size_bytes(text, "message size")
    if size > MAX_PROBE_MESSAGE_BYTES:
        raise CloudnoiseError(f"message size {shown(text)} is too large: the probes send at most 2^31-1 bytes (2 GiB)")
    return size


def parse_sizes(value: str | Iterable[str | int] | None) -> list[int] | None:
    """Message sizes (a comma list or a list of sizes), each at least 1 byte; None: the experiment's default."""
    if value is None or value == "":
        return None
    sizes = [parse_size(t) for t in _items(value)]  # type: ignore[arg-type]
    if not sizes:
        return None
    if any(s < 1 for s in sizes):
        raise CloudnoiseError("message sizes must be at least 1 byte")
    return sizes


def parse_floats(value: str | Iterable[float] | None, what: str, high: float = MAX_INTERVAL_S) -> list[float] | None:
    """Finite numbers in [0, high] (a comma list or a list)."""
    if value is None or value == "":
        return None
    try:
        values = [float(t) for t in _items(value)]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise CloudnoiseError(f"{what} must be comma-separated numbers, got {shown(value)}") from None
    return [limits.check_range(v, what, 0, high) for v in values]


def parse_whole(value: str | Iterable[int] | None, what: str, high: int) -> list[int] | None:
    """Whole numbers in [1, high] (a comma list or a list)."""
    if value is None or value == "":
        return None
    if isinstance(value, str):
        from cloudnoise.comma_lists import parse_counts

        values = parse_counts(value, what)
    else:
        values = _items(value)  # type: ignore[assignment]
    return [limits.check_count(v, what, 1, high) for v in values]


def parse_labels(pairs: Iterable[str] | Mapping[str, str]) -> dict[str, str]:
    """KEY=VALUE pairs (or a mapping) recorded with the campaign; `distance` is checked."""
    labels: dict[str, str] = {}
    if isinstance(pairs, Mapping):
        labels = {str(k).strip(): str(v).strip() for k, v in pairs.items()}
        if any(not k for k in labels):
            raise CloudnoiseError("label names must not be empty")
    else:
        # one text is one KEY=VALUE, as one --label (a value may hold a comma)
        for pair in ((pairs,) if isinstance(pairs, str) else pairs):
            key, sep, value = pair.partition("=")
            if not sep or not key.strip():
                raise CloudnoiseError(f"--label {pair!r} must be KEY=VALUE, e.g. --label system=aws")
            labels[key.strip()] = value.strip()
    if labels.get("distance", "unknown") not in DISTANCES:
        raise CloudnoiseError(f"--label distance= must be one of {', '.join(DISTANCES)}")
    return labels


def hosts_in(hosts: str | Iterable[str] | None) -> list[str]:
    """Host names from a comma list or a list, blanks dropped."""
    if hosts is None:
        return []
    return [h.strip() for h in _items(hosts) if str(h).strip()]  # type: ignore[union-attr]


def hostfile_hosts(path: str | os.PathLike[str]) -> int:
    """How many hosts a hostfile names (blank lines and comments skipped)."""
    try:
        lines = Path(path).read_text().splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise CloudnoiseError(f"cannot read --hostfile {path}: {getattr(err, 'strerror', None) or err}") from err
    return len([ln for ln in lines if ln.strip() and not ln.lstrip().startswith("#")])


def unique_campaign_dir(parent: Path) -> Path:
    """A new folder ``cloudnoise-campaign-<UTC time>``, created here and now, so two
    runs started in the same second never share one (``-2``, ``-3``, ... follow)."""
    stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%SZ")
    for n in range(1, 10000):
        path = parent / (f"cloudnoise-campaign-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            path.mkdir(parents=True)
            return path
        except FileExistsError:
            continue
        except OSError as err:
            raise CloudnoiseError(f"cannot create a campaign folder in {parent}: {err.strerror}; pass --out") from err
    raise CloudnoiseError(f"too many campaign folders for {stamp} in {parent}; pass --out")


