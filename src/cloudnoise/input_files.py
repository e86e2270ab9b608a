"""Reading files that may come from someone else: one way, with one-line errors.

Every reader of a user's text or JSON file (profiles, traces, samples,
campaign metadata, sweep.json) opens it here, so each of them says the same
thing, naming the file, when what it was given is a directory, missing,
unreadable, not UTF-8 (UTF-16 from a Windows editor, or binary), not JSON,
JSON with NaN in it, nested beyond reason, or of the wrong shape (checked
against a JSON Schema, the error naming the key: `FILE: at experiments.x.plan[0]:
...`). JSON's NaN and Infinity are refused: no format of ours writes them and
a number must be a number.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cloudnoise.errors import CloudnoiseError, shown

# No input of ours is larger than this as JSON; a bigger file is not one of them.
MAX_JSON_BYTES = 64 * 2**20


def _a(what: str) -> str:
    return ("an " if what[:1].lower() in "aeiou" else "a ") + what


def check_file(path: str | Path, what: str) -> Path:
    """`path` as a Path when it names a readable regular file, else a one-line error."""
    if "\x00" in str(path):
        raise CloudnoiseError(f"{shown(str(path))}: a file name cannot hold a NUL character; no such {what}")
    p = Path(path)
    if not p.exists():
        raise CloudnoiseError(f"{p}: no such {what}")
    if p.is_dir():
        raise CloudnoiseError(f"{p}: is a directory, expected {_a(what)}")
    if not p.is_file():
        raise CloudnoiseError(f"{p}: not a regular file, expected {_a(what)}")
    return p


def file_beside(base_dir: Path, name: str, what: str) -> Path:
    """A data file that a document (a profile) names, resolved in the document's
    folder. The document may come from someone else, so the file must lie
    inside that folder: an absolute path, or `..` or a link out of it, is
    refused (docs/reference/security.md)."""
    if "\x00" in str(name):  # no file has one; the OS would refuse the name with a ValueError
        raise CloudnoiseError(f"{what} file {shown(name)}: a file name cannot hold a NUL character")
    path = Path(name)
    base = base_dir.resolve()
    full = (base / path).resolve()
    if path.is_absolute() or not full.is_relative_to(base):
        raise CloudnoiseError(
            f"{what} file {shown(name)} lies outside the folder {base}; a profile may only name "
            "files beside it (copy the file there)"
        )
    return full


def decode_text(data: bytes, path: Path, what: str) -> str:
    """UTF-8 text (a UTF-8 byte-order mark is dropped); UTF-16 and binary data are named as such."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise CloudnoiseError(f"{path}: UTF-16 text, expected UTF-8; save the {what} as UTF-8")
    if b"\x00" in data[:4096]:
        raise CloudnoiseError(f"{path}: binary data, not {_a(what)} (expected UTF-8 text)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise CloudnoiseError(f"{path}:{line}: not UTF-8 text ({err.reason}); save the {what} as UTF-8") from None


def read_text(path: str | Path, what: str, max_bytes: int | None = None) -> str:
    """The whole text of a small file (profiles, metadata, specs)."""
    p = check_file(path, what)
    try:
        size = p.stat().st_size
        if max_bytes is not None and size > max_bytes:
            raise CloudnoiseError(f"{p}: {size} bytes, too large for {_a(what)} (at most {max_bytes})")
        data = p.read_bytes()
    except OSError as err:
        raise CloudnoiseError(f"{p}: cannot read the {what} ({err.strerror or err})") from None
    return decode_text(data, p, what)


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number JSON allows")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{shown(text)} is beyond the range of a number")
    return value


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > 40:
        raise ValueError(f"the whole number {shown(text)} is beyond any range cloudnoise reads")
    return int(text)


def parse_json(text: str, where: str, allow_nan: bool = False) -> Any:
    """JSON from text; NaN and Infinity refused (unless `allow_nan`: measurement
    summaries write NaN for a fit that has no value), and so are numbers
    beyond float64 (1e400) or of more than 40 digits. Errors name `where` and the line."""
    try:
        return json.loads(
            text,
            parse_constant=None if allow_nan else _no_constant,
            parse_float=_finite_float,
            parse_int=_bounded_int,
        )
    except json.JSONDecodeError as err:
        raise CloudnoiseError(f"{where}:{err.lineno}: not valid JSON: {err.msg}") from None
    except ValueError as err:  # a refused constant or number
        raise CloudnoiseError(f"{where}: {err}; write a finite number or null") from None
    except RecursionError:
        raise CloudnoiseError(f"{where}: JSON nested too deeply to be a cloudnoise file") from None


def read_json(path: str | Path, what: str, schema: dict[str, Any] | None = None, allow_nan: bool = False) -> Any:
    """A JSON file's value, checked against `schema` (JSON Schema) when given."""
    p = Path(path)
    data = parse_json(read_text(p, what, MAX_JSON_BYTES), str(p), allow_nan)
    if schema is not None:
        check_schema(data, schema, str(p), what)
    return data


def check_schema(data: Any, schema: dict[str, Any], where: str, what: str) -> None:
    """Validates `data` against a JSON Schema; the first error names its key path and value."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    try:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
    except RecursionError:
        raise CloudnoiseError(f"{where}: nested too deeply to be a {what}") from None
    if error is None:
        return
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path).lstrip(".")
    raise CloudnoiseError(f"{where}: not a valid {what}: {_schema_message(error, path)}")


def _schema_message(error: Any, path: str) -> str:
    """One line for a jsonschema error: the key path, what it must be, and the value found (cut short)."""
    value = shown(error.instance)
    key = path or "the document"
    kind = error.validator
    want = error.validator_value
    if kind == "type":
        names = {"number": "a number", "integer": "a whole number", "string": "text", "object": "an object",
                 "array": "a list", "boolean": "true or false", "null": "null"}
        types = want if isinstance(want, list) else [want]
        return f"{key} must be {' or '.join(names.get(t, t) for t in types)}, got {value}"
    if kind in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
        bound = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[kind]
        return f"{key} must be {bound} {want if isinstance(want, int) else format(want, 'g')}, got {value}"
    if kind == "enum":
        return f"{key} must be one of {', '.join(map(repr, want))}, got {value}"
    if kind == "const":
        return f"{key} must be {want!r}, got {value}"
    if kind == "required":
        missing = [k for k in want if isinstance(error.instance, dict) and k not in error.instance]
        return f"{path + ': ' if path else ''}missing {', '.join(missing) or shown(error.message)}"
    if kind == "additionalProperties" and isinstance(error.instance, dict):
        known = set((error.schema.get("properties") or {}))
        extra = sorted(k for k in error.instance if k not in known)
        return (f"{path + ': ' if path else ''}unknown key {shown(extra[0] if extra else '?')} "
                f"(known: {', '.join(sorted(known))})")
    if kind in ("minItems", "maxItems", "minLength", "maxLength"):
        return f"{key}: {shown(error.message, 120)}"
    return f"{key}: {shown(error.message, 120)}"
