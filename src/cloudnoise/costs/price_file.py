"""A user's price file: current prices instead of the paper's July 2022 Table I.

CSV with a header row naming these columns (any order; case, spaces and
hyphens in names do not matter):

    system              the system's name as cloudnoise knows it (a built-in
                        profile name, or the `name` of a profile file)
    pricing             on-demand, committed or spot
    usd_per_node_hour   the price of one node for one hour, USD, > 0
    date                when the price was read, YYYY-MM-DD (not in the future)
    source              where it was read (a URL, a quote number), not empty
    billing             optional: how that price is billed, STEP[:MINIMUM]
                        (1s:60s, 1h); empty: the provider's rule

Example::

    system,pricing,usd_per_node_hour,date,source
    azure-hpc,on-demand,3.60,2025-05-01,https://azure.microsoft.com/pricing/details/virtual-machines/linux/
    azure-hpc,spot,0.72,2025-05-01,Azure portal spot price East US

Every error names FILE:LINE and what to write instead. The file is read row
by row and may hold at most `MAX_ROWS` rows (a price list, not a data set).
"""

from __future__ import annotations

import csv
import datetime as dt
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from cloudnoise.costs.billing import Billing, parse_step
from cloudnoise.errors import CloudnoiseError

REQUIRED = ("system", "pricing", "usd_per_node_hour", "date", "source")
OPTIONAL = ("billing",)
KINDS = ("on-demand", "committed", "spot")
MAX_ROWS = 100_000
_KIND_ALIASES = {"on-demand": "on-demand", "ondemand": "on-demand", "on_demand": "on-demand", "committed": "committed",
                 "reserved": "committed", "spot": "spot"}


@dataclass(frozen=True)
class PriceRow:
    """One price of one system."""

    system: str
    pricing: str  # on-demand | committed | spot
    usd_per_node_hour: float
    date: dt.date
    source: str
    line: int
    billing: Billing | None = None


@dataclass(frozen=True)
class PriceFile:
    """The rows of a price file, by (system, pricing)."""

    path: Path
    rows: dict[tuple[str, str], PriceRow]

    def get(self, system: str, pricing: str) -> PriceRow | None:
        return self.rows.get((system, pricing))

    def kinds(self, system: str) -> list[str]:
        """The pricings the file has for `system`, in KINDS order."""
        return [k for k in KINDS if (system, k) in self.rows]

    def systems(self) -> list[str]:
        return sorted({s for s, _ in self.rows})


def _column(name: str) -> str:
    return "_".join(name.strip().lower().replace("-", " ").split())


def _lines(path: Path) -> Iterator[str]:
    try:
        with open(path, encoding="utf-8-sig", newline="") as f:
            yield from f
    except FileNotFoundError:
        raise CloudnoiseError(f"{path}: no such price file") from None
    except IsADirectoryError:
        raise CloudnoiseError(f"{path}: is a directory, expected a price file (CSV)") from None
    except UnicodeDecodeError:
        raise CloudnoiseError(f"{path}: not a text file (UTF-8 CSV expected)") from None
    except OSError as err:
        raise CloudnoiseError(f"{path}: cannot read ({err.strerror or err})") from None


def _price(text: str, where: str) -> float:
    try:
        value = float(text.strip().lstrip("$").strip())
    except ValueError:
        raise CloudnoiseError(f"{where}: usd_per_node_hour must be a number of USD, got {text.strip()!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise CloudnoiseError(f"{where}: usd_per_node_hour must be a positive number of USD, got {text.strip()!r}")
    return value


def _date(text: str, where: str, today: dt.date) -> dt.date:
    t = text.strip()
    try:
        if len(t) != 10:
            raise ValueError
        date = dt.date.fromisoformat(t)
    except ValueError:
        raise CloudnoiseError(f"{where}: date must be YYYY-MM-DD (e.g. 2025-05-01), got {t!r}") from None
    if date > today + dt.timedelta(days=1):  # a day of slack for time zones
        raise CloudnoiseError(f"{where}: date {t} is in the future; give the day the price was read")
    return date


def load_price_file(path: str | Path, today: dt.date | None = None) -> PriceFile:
    """Reads and checks a price file (see the module docstring)."""
    p = Path(path)
    today = today or dt.date.today()
    reader = csv.reader(_lines(p))
    try:
        header = next(reader, None)
        if header is None or not any(h.strip() for h in header):
            raise CloudnoiseError(f"{p}:1: empty price file; the first row names the columns {', '.join(REQUIRED)}")
        names = [_column(h) for h in header]
        missing = [c for c in REQUIRED if c not in names]
        if missing:
            raise CloudnoiseError(
                f"{p}:1: missing column{'s' if len(missing) > 1 else ''} {', '.join(missing)} "
                f"(the header must name {', '.join(REQUIRED)}; optional: {', '.join(OPTIONAL)})"
            )
        unknown = [h for h, n in zip(header, names) if n not in REQUIRED + OPTIONAL]
        if unknown:
            raise CloudnoiseError(f"{p}:1: unknown column {unknown[0].strip()!r} (columns: {', '.join(REQUIRED + OPTIONAL)})")
        dup = sorted({n for n in names if names.count(n) > 1})
        if dup:
            raise CloudnoiseError(f"{p}:1: column {dup[0]!r} is named twice")
        index = {n: i for i, n in enumerate(names)}
        rows: dict[tuple[str, str], PriceRow] = {}
        for cells in reader:
            line = reader.line_num
            if not any(c.strip() for c in cells):
                continue
            where = f"{p}:{line}"
            if len(cells) != len(names):
                raise CloudnoiseError(f"{where}: {len(cells)} fields, the header has {len(names)}")
            if len(rows) >= MAX_ROWS:
                raise CloudnoiseError(f"{where}: more than {MAX_ROWS} prices; a price file lists systems, keep it short")
            cell = {n: cells[i] for n, i in index.items()}
            system = cell["system"].strip()
            if not system:
                raise CloudnoiseError(f"{where}: empty system name")
            kind = _KIND_ALIASES.get(cell["pricing"].strip().lower())
            if kind is None:
                raise CloudnoiseError(f"{where}: pricing must be one of {', '.join(KINDS)}, got {cell['pricing'].strip()!r}")
            price = _price(cell["usd_per_node_hour"], where)
            date = _date(cell["date"], where, today)
            source = cell["source"].strip()
            if not source:
                raise CloudnoiseError(f"{where}: empty source; say where the price comes from (a URL, a quote)")
            billing = None
            if cell.get("billing", "").strip():
                billing = parse_step(cell["billing"].strip(), f"{where}: billing")
                billing = Billing(f"{p.name}:{line}", billing.increment_s, billing.minimum_s, "given",
                                  f"{p}:{line} billing {cell['billing'].strip()}", date.isoformat())
            first = rows.get((system, kind))
            if first is not None:
                raise CloudnoiseError(f"{where}: a second {kind} price for {system} (the first is on line {first.line})")
            rows[(system, kind)] = PriceRow(system, kind, price, date, source, line, billing)
    except csv.Error as err:
        raise CloudnoiseError(f"{p}:{reader.line_num}: not valid CSV ({err})") from None
    if not rows:
        raise CloudnoiseError(f"{p}: no prices below the header")
    return PriceFile(p, rows)
