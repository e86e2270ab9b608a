"""LogGOPS parameters: what users type (nanoseconds, or units) and what the
engine takes (integer picoseconds; femtoseconds per byte for G and O)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from cloudnoise import _engine
from cloudnoise.errors import CloudnoiseError
from cloudnoise.units import parse_per_byte_fs, parse_size_bytes, parse_time_ps

if TYPE_CHECKING:
    from cloudnoise.model.profile import SystemProfile

# LogGOPSim's defaults, so a bare `cloudnoise simulate FILE` matches a bare
# `LogGOPSim -f FILE`.
DEFAULTS = {"L": "2500", "o": "1500", "g": "1000", "G": "6", "O": "0", "S": "65535"}


@dataclass(frozen=True)
class LogGOPS:
    """L, o, g in ps; G, O in fs per byte; S in bytes (eager when size <= S).

    O_rendezvous_fs: cloudnoise's one extension of LogGOPS, the per-byte CPU
    overhead of messages above S when it differs from O (a measured profile
    has it: a rendezvous send's CPU does not copy the message); None charges
    O at every size, as LogGOPSim does.
    """

    L_ps: int
    o_ps: int
    g_ps: int
    G_fs: int
    O_fs: int
    S: int
    O_rendezvous_fs: int | None = None

    @classmethod
    def parse(
        cls,
        L: str | float = DEFAULTS["L"],
        o: str | float = DEFAULTS["o"],
        g: str | float = DEFAULTS["g"],
        G: str | float = DEFAULTS["G"],
        O: str | float = DEFAULTS["O"],  # noqa: E741 - LogGOPS's name
        S: str | int = DEFAULTS["S"],
        O_rendezvous: str | float | None = None,
    ) -> LogGOPS:
        """From user text: plain numbers are nanoseconds (per byte for G, O)."""
        return cls(
            L_ps=parse_time_ps(L, "L"),
            o_ps=parse_time_ps(o, "o"),
            g_ps=parse_time_ps(g, "g"),
            G_fs=parse_per_byte_fs(G, "G"),
            O_fs=parse_per_byte_fs(O, "O"),
            S=parse_size_bytes(S, "S"),
            O_rendezvous_fs=None if O_rendezvous is None else parse_per_byte_fs(O_rendezvous, "O_rendezvous"),
        )

    @classmethod
    def from_profile(cls, profile: SystemProfile) -> LogGOPS:
        """A system profile's parameters (ns floats) in engine units."""
        p = profile.loggops
        return cls.parse(
            L=f"{p.L!r}ns", o=f"{p.o!r}ns", g=f"{p.g!r}ns", G=f"{p.G!r}ns", O=f"{p.O!r}ns", S=p.S,
            O_rendezvous=None if p.O_rendezvous is None else f"{p.O_rendezvous!r}ns",
        )

    def with_overrides(self, **text: str | None) -> LogGOPS:
        """These parameters with some replaced by user text (None keeps).
        An O given here applies to every size (it replaces O_rendezvous too)."""
        given = {k: v for k, v in text.items() if v is not None}
        if not given:
            return self
        parsed = LogGOPS.parse(**{**{k: "0" for k in "LogGOS"}, **given})
        return LogGOPS(**{f: getattr(parsed if f.split("_")[0] in given else self, f) for f in self.__dataclass_fields__})

    def to_engine(self) -> _engine.LogGOPSParams:
        if self.S >= 2**63:
            raise CloudnoiseError("S is too large")
        O_rdv = -1 if self.O_rendezvous_fs is None else self.O_rendezvous_fs
        return _engine.LogGOPSParams(self.L_ps, self.o_ps, self.g_ps, self.G_fs, self.O_fs, self.S, O_rdv)

    def as_ns(self) -> dict[str, float | int]:
        """The parameters in LogGOPSim's units (ns, ns/byte, bytes)."""

        def ns(value: int, scale: int) -> float | int:
            return value // scale if value % scale == 0 else value / scale

        out = {
            "L": ns(self.L_ps, 1000),
            "o": ns(self.o_ps, 1000),
            "g": ns(self.g_ps, 1000),
            "G": ns(self.G_fs, 10**6),
            "O": ns(self.O_fs, 10**6),
            "S": self.S,
        }
        if self.O_rendezvous_fs is not None:
            out["O_rendezvous"] = ns(self.O_rendezvous_fs, 10**6)
        return out
