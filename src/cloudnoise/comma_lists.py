"""Comma-separated option values (`--nodes 16,64,256`, `--profile a,b`),
parsed one way by every command, with errors that say what to write."""

from __future__ import annotations

import os
from collections.abc import Iterable

from cloudnoise.errors import CloudnoiseError, shown
from cloudnoise.limits import MAX_RANKS


def parse_items(text: str, what: str) -> list[str]:
    """Non-empty, stripped items; an empty list or item is an error naming `what`."""
    items = [t.strip() for t in text.split(",")]
    if not text.strip() or any(not t for t in items):
        raise CloudnoiseError(f"{what}: empty item in {text!r}; give a comma-separated list")
    return items


def items_of(value: str | Iterable[str], what: str) -> list[str]:
    """A comma-separated text as the command line takes it (`"none,both"`), or a list of
    items (each item taken whole): the API's list parameters take both forms."""
    if isinstance(value, str):
        return parse_items(value, what)
    items = [str(v).strip() for v in value]
    if not items or any(not v for v in items):
        raise CloudnoiseError(f"{what}: empty item in {list(value)!r}; give a non-empty list")
    return items


def profile_names(values: str | os.PathLike[str] | Iterable[str | os.PathLike[str]] | None,
                  what: str = "--profile") -> list[str]:
    """The names and files of a repeated, comma-separated `--profile` (or the API's
    `profiles`), in order, duplicates dropped. A text is a comma list; a path object is one
    file, never split (its name may hold a comma)."""
    if values is None:
        return []
    if isinstance(values, (str, os.PathLike)):
        values = (values,)
    names: list[str] = []
    for value in values:
        names += [os.fspath(value)] if isinstance(value, os.PathLike) else parse_items(value, what)
    return list(dict.fromkeys(names))


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


def parse_scales(text: str, what: str = "--nodes") -> list[int]:
    """Node counts: a comma list whose items are counts (`16`, `16_384`) or
    geometric ranges `A..B` (A, 2A, 4A, ... up to B) and `A..B:F` (factor F:
    `16..16384:4` is 16, 64, 256, 1024, 4096, 16384). Duplicates are kept
    once, in the order first given."""
    out: list[int] = []
    for item in parse_items(text, what):
        lo_text, dots, rest = item.partition("..")
        if not dots:
            values = parse_counts(item, what)
        else:
            hi_text, colon, factor_text = rest.partition(":")
            lo, hi = parse_counts(lo_text, what)[0], parse_counts(hi_text, what)[0]
            factor = parse_counts(factor_text, what)[0] if colon else 2
            if factor < 2:
                raise CloudnoiseError(f"{what}: the factor of {item!r} must be at least 2")
            if hi < lo:
                raise CloudnoiseError(f"{what}: {item!r} ends below where it starts; write LOW..HIGH")
            values = []
            n = lo
            while n <= hi:
                values.append(n)
                n *= factor
        out += [v for v in values if v not in out]
    return out
