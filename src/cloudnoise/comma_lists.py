"""Comma-separated option values (`--nodes 16,64,256`, `--systems a,b`),
parsed one way by every command, with errors that say what to write."""

from __future__ import annotations

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.limits import MAX_RANKS


def parse_items(text: str, what: str) -> list[str]:
    """Non-empty, stripped items; an empty list or item is an error naming `what`."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise CloudnoiseError(f"{what}: empty item in {text!r}; give a comma-separated list")
    return items


def parse_counts(text: str, what: str, minimum: int | None = 1, maximum: int | None = MAX_RANKS) -> list[int]:
    """Whole numbers of at least `minimum` and at most `maximum` (None: any; the caller checks),
    underscores allowed: 16_384. The default maximum is the most ranks the engine simulates."""
    out = []
    for item in parse_items(text, what):
        try:
            if len(item) > 40:
                raise ValueError
            n = int(item.replace("_", ""))
        except ValueError:
            raise CloudnoiseError(f"{what} takes whole numbers such as 16,64,256, got {shown(item)}") from None
        if minimum is not None and n < minimum:
            raise CloudnoiseError(f"{what}: {n} is too small (at least {minimum})")
        if maximum is not None and n > maximum:
            raise CloudnoiseError(f"{what}: {n} is too large (at most {maximum:_})")
        out.append(n)
    return out
