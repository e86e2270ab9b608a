"""MPI collective names as patterns: `allreduce`, `bcast`, `alltoall` are the
Schedgen pattern of the algorithm MPICH picks at that size and rank count.

MPICH's default selection for a communicator of P ranks (its CVARs, as the
MPICH source declares them: MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE = 2048,
MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288, MPIR_CVAR_BCAST_MIN_PROCS = 8,
MPIR_CVAR_ALLTOALL_SHORT_MSG_SIZE = 256, MPIR_CVAR_ALLTOALL_MEDIUM_MSG_SIZE =
32768, MPIR_CVAR_ALLTOALL_MIN_PROCS = 8), with SIZE the bytes of the
operation (allreduce, bcast: the buffer; alltoall: the block sent to each
rank):

| call | when | MPICH runs | simulated as |
|---|---|---|---|
| allreduce | SIZE <= 2048 B, or fewer bytes than the largest power of two <= P | recursive doubling | `dissemination`: the same log2 P rounds of the whole buffer |
| allreduce | otherwise | reduce-scatter + allgather (Rabenseifner) | `allreduce_recdoub` |
| bcast | SIZE < 12288 B, or P < 8 | binomial tree | `binomialtreebcast` |
| bcast | otherwise | scatter + allgather | none: refused, naming the patterns there are |
| alltoall | SIZE <= 256 B and P >= 8 | Bruck's algorithm | none: refused |
| alltoall | SIZE <= 32768 B | every send and receive posted at once | `linear_alltoall` |
| alltoall | larger | pairwise exchange, P-1 steps one after the other | `linear_alltoall`, said: the same messages without the steps' waits, a lower bound |

The element count MPICH compares with P is taken as the byte count (one-byte
elements); Schedgen's patterns take sizes in bytes alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from cloudnoise.errors import CloudnoiseError

ALLREDUCE_SHORT = 2048
BCAST_SHORT = 12288
BCAST_MIN_PROCS = 8
ALLTOALL_SHORT = 256
ALLTOALL_MEDIUM = 32768
ALLTOALL_MIN_PROCS = 8
MPI_NAMES = ("allreduce", "bcast", "alltoall")


@dataclass(frozen=True)
class Choice:
    """The pattern simulated for an MPI call, and why, in one line."""

    pattern: str
    why: str


def _pof2(p: int) -> int:
    return 1 << (max(1, p).bit_length() - 1)


def _size(n: int) -> str:
    from cloudnoise.units import format_size

    return format_size(n)


def mpich_choice(call: str, ranks: int, size: int) -> Choice:
    """The Schedgen pattern of MPICH's algorithm for `call` at `size` bytes on
    `ranks` ranks (see the module docstring), or a one-line CloudnoiseError
    where Schedgen has no such algorithm."""
    at = f"{call} of {_size(size)} on {ranks} ranks"
    if call == "allreduce":
        if size <= ALLREDUCE_SHORT or size < _pof2(ranks):
            return Choice("dissemination", f"{at}: MPICH runs recursive doubling (at most {_size(ALLREDUCE_SHORT)}, "
                                           "or too few elements to split): simulated as dissemination")
        return Choice("allreduce_recdoub", f"{at}: MPICH runs reduce-scatter + allgather (above "
                                           f"{_size(ALLREDUCE_SHORT)}): simulated as allreduce_recdoub")
    if call == "bcast":
        if size < BCAST_SHORT or ranks < BCAST_MIN_PROCS:
            return Choice("binomialtreebcast", f"{at}: MPICH runs a binomial tree (below {_size(BCAST_SHORT)}, or "
                                               f"fewer than {BCAST_MIN_PROCS} ranks): simulated as binomialtreebcast")
        raise CloudnoiseError(f"--pattern bcast: MPICH broadcasts {_size(size)} on {ranks} ranks with scatter + "
                              "allgather, which Schedgen does not generate; give a pattern: binomialtreebcast (MPICH's "
                              f"below {_size(BCAST_SHORT)}), binarytreebcast or pipelinedring")
    if call == "alltoall":
        if size <= ALLTOALL_SHORT and ranks >= ALLTOALL_MIN_PROCS:
            raise CloudnoiseError(f"--pattern alltoall: MPICH exchanges {_size(size)} blocks on {ranks} ranks with "
                                  "Bruck's algorithm, which Schedgen does not generate; give --pattern linear_alltoall "
                                  f"(MPICH's from {_size(ALLTOALL_SHORT + 1)} to {_size(ALLTOALL_MEDIUM)}) to simulate "
                                  "every block sent at once")
        if size <= ALLTOALL_MEDIUM:
            return Choice("linear_alltoall", f"{at}: MPICH posts every send and receive at once (up to "
                                             f"{_size(ALLTOALL_MEDIUM)}): simulated as linear_alltoall")
        return Choice("linear_alltoall", f"{at}: MPICH runs a pairwise exchange in {ranks - 1} steps (above "
                                         f"{_size(ALLTOALL_MEDIUM)}), which Schedgen does not generate: simulated as "
                                         "linear_alltoall, the same messages without the steps' waits (a lower bound)")
    raise CloudnoiseError(f"no MPICH rule for {call!r}; the MPI names taken as patterns are {', '.join(MPI_NAMES)}")
