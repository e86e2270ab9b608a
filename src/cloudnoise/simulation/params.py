"""LogGOPS parameters: what users type (nanoseconds, or units) and what the
engine takes (integer picoseconds; femtoseconds per byte for G and O)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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

    O_rendezvous_fs: an extension of LogGOPS, the per-byte CPU overhead of
    messages above S when it differs from O (a rendezvous send's CPU does not
    copy the message); None charges O at every size, as LogGOPSim does.

    classes: the size-class extension, (min_bytes, L_ps, G_fs, O_fs) per
    class, the first at 0 bytes: a message's L, G and O are its class's (a
    measured profile has them: one straight line does not describe a
    transport from 1 B to 16 MiB). Empty: LogGOPSim exactly.

    o_r_ps: the separate-overheads extension, the CPU overhead of receiving
    a message when it differs from sending one (o_ps is then the send
    overhead); None: o for both, as LogGOPSim.
    """

    L_ps: int
    o_ps: int
    g_ps: int
    G_fs: int
    O_fs: int
    S: int
    O_rendezvous_fs: int | None = None
    classes: tuple[tuple[int, int, int, int], ...] = ()
    o_r_ps: int | None = None

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
        classes: tuple[tuple[int, str | float, str | float, str | float], ...] = (),
        o_r: str | float | None = None,
    ) -> LogGOPS:
        """From user text: plain numbers are nanoseconds (per byte for G, O);
        ``classes`` as (min_bytes, L, G, O) in the same units."""
        return cls(
            L_ps=parse_time_ps(L, "L"),
            o_ps=parse_time_ps(o, "o"),
            g_ps=parse_time_ps(g, "g"),
            G_fs=parse_per_byte_fs(G, "G"),
            O_fs=parse_per_byte_fs(O, "O"),
            S=parse_size_bytes(S, "S"),
            O_rendezvous_fs=None if O_rendezvous is None else parse_per_byte_fs(O_rendezvous, "O_rendezvous"),
            classes=tuple(
                (int(m), parse_time_ps(cL, "size class L"), parse_per_byte_fs(cG, "size class G"),
                 parse_per_byte_fs(cO, "size class O"))
                for m, cL, cG, cO in classes
            ),
            o_r_ps=None if o_r is None else parse_time_ps(o_r, "o_r"),
        )

    @classmethod
    def from_profile(cls, profile: SystemProfile) -> LogGOPS:
        """A system profile's parameters (ns floats) in engine units.

        A profile's numbers are data, measured or fitted to any precision (a fit
        on one machine may give L = 2.6e-6 ns): they are rounded to the engine's
        resolution, 1 ps for times and 1 fs per byte, where user text finer than
        that is refused."""
        p = profile.loggops
        split = p.o_s is not None and p.o_r is not None

        def t(v: float) -> str:
            return f"{round(v, 3)!r}ns"  # whole picoseconds

        def b(v: float) -> str:
            return f"{round(v, 6)!r}ns"  # whole femtoseconds per byte

        return cls.parse(
            L=t(p.L), o=t(p.o_s if split else p.o), o_r=t(p.o_r) if split else None, g=t(p.g), G=b(p.G), O=b(p.O),
            S=p.S, O_rendezvous=None if p.O_rendezvous is None else b(p.O_rendezvous),
            classes=tuple((c.min_bytes, t(c.L), b(c.G), b(c.O)) for c in p.size_classes),
        )

    def with_overrides(self, **text: str | None) -> LogGOPS:
        """These parameters with some replaced by user text (None keeps).
        An O given here applies to every size (it replaces O_rendezvous too);
        an L, G or O replaces the size classes (every size gets the plain
        parameters, as in LogGOPSim)."""
        given = {k: v for k, v in text.items() if v is not None}
        if not given:
            return self
        parsed = LogGOPS.parse(**{**{k: "0" for k in "LogGOS"}, **given})
        out = LogGOPS(**{f: getattr(parsed if f.split("_")[0] in given else self, f)
                         for f in self.__dataclass_fields__ if f not in ("classes", "o_r_ps")})
        if not set(given) & {"L", "G", "O"}:
            out = LogGOPS(**{**out.__dict__, "classes": self.classes})
        if "o" not in given:  # an o given here is both overheads, as in LogGOPSim
            out = LogGOPS(**{**out.__dict__, "o_r_ps": self.o_r_ps})
        return out

    def to_engine(self) -> _engine.LogGOPSParams:
        if self.S >= 2**63:
            raise CloudnoiseError("S is too large")
        O_rdv = -1 if self.O_rendezvous_fs is None else self.O_rendezvous_fs
        if self.classes and self.classes[0][0] != 0:
            raise CloudnoiseError("the first size class must start at 0 bytes")
        if any(b[0] <= a[0] for a, b in zip(self.classes, self.classes[1:])):
            raise CloudnoiseError("size classes must be listed by growing min_bytes")
        return _engine.LogGOPSParams(self.L_ps, self.o_ps, self.g_ps, self.G_fs, self.O_fs, self.S, O_rdv,
                                     list(self.classes), -1 if self.o_r_ps is None else self.o_r_ps)

    def least_latency_noise_ps(self) -> int:
        """The least latency noise a message may draw: minus (its least L + the send overhead), so
        that no message arrives before its send started (the engine's events never run backwards)."""
        least_L = min([self.L_ps] + [c[1] for c in self.classes]) if self.classes else self.L_ps
        return -(least_L + self.o_ps)

    def one_byte_ps(self) -> int:
        """A lone 1 B message's one-way time as the engine charges it, with no
        noise: o_s + L + o_r (L of the first size class where there are classes)."""
        L = self.classes[0][1] if self.classes else self.L_ps
        return self.o_ps + L + (self.o_ps if self.o_r_ps is None else self.o_r_ps)

    def as_ns(self) -> dict[str, Any]:
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
        if self.o_r_ps is not None:
            out["o_r"] = ns(self.o_r_ps, 1000)
        if self.classes:
            out["size_classes"] = [
                {"min_bytes": m, "L": ns(cL, 1000), "G": ns(cG, 10**6), "O": ns(cO, 10**6)}
                for m, cL, cG, cO in self.classes
            ]
        return out
