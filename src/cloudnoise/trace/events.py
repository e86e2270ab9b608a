"""What every trace reader yields: one `Call` per MPI call of a rank, in
program order, and the communicators those calls name.

Readers of different formats (native, liballprof, OTF2) differ in what they
record; they all map it onto these records, so conversion and extrapolation
are written once. Times are nanoseconds from the moment MPI_Init returned on
that rank (the recorder aligns every rank's origin with a barrier).
"""

from __future__ import annotations

from dataclasses import dataclass, field

# What a call means to the converter.
KINDS = (
    "init",          # MPI_Init / MPI_Init_thread
    "finalize",      # MPI_Finalize (its entry ends the application's runtime)
    "send",          # blocking send (any mode)
    "recv",          # blocking receive; `status` says what arrived
    "isend",         # non-blocking send; completes at a wait/test
    "irecv",         # non-blocking receive; what arrived is in the completion
    "send_init",     # persistent send: a template started by `start`
    "recv_init",     # persistent receive
    "start",         # MPI_Start / MPI_Startall: `requests`
    "request_free",  # MPI_Request_free: `requests`
    "cancel",        # MPI_Cancel: `requests`; whether it succeeded is in the completion (source CANCELLED)
    "sendrecv",      # MPI_Sendrecv(_replace)
    "complete",      # Wait/Test families: `completions` lists what finished
    "coll",          # a collective (blocking, or non-blocking with `request`)
    "comm_create",   # a new communicator: `comm_info`
    "comm_free",     # MPI_Comm_free
    "cart_shift",    # MPI_Cart_shift: peer = dest, recv_peer = source, root = direction, tag = disp
    "local",         # a call with no communication (probes, queries): its time is compute
    "poll",          # `repeat` unsuccessful calls of a Test or Iprobe (named `name`) folded into one: compute
    "unsupported",   # recorded by name only: the converter refuses it unless told to count it as compute
)

ANY = -1     # MPI_ANY_SOURCE / MPI_ANY_TAG
PROC_NULL = -2
CANCELLED = -3  # a completion's source when its request was cancelled (MPI_Test_cancelled true): no message
EMPTY_STATUS = (ANY, ANY, 0)  # MPI's empty status: source and tag wildcards, 0 bytes


@dataclass(slots=True, frozen=True)
class CommInfo:
    """A communicator as one rank sees it.

    `key` names it identically on every member (the world rank of its rank
    0 and that rank's creation counter, or ("world",)); `members` are the
    world ranks of its ranks in order (None: MPI_COMM_WORLD's, in order);
    `dims`/`periods` describe a Cartesian grid.
    """

    id: int
    key: tuple
    size: int
    rank: int
    members: tuple[int, ...] | None = None
    dims: tuple[int, ...] = ()
    periods: tuple[int, ...] = ()

    def world_rank(self, r: int) -> int:
        return r if self.members is None else self.members[r]


@dataclass(slots=True)
class Call:
    """One MPI call on one rank. Fields not meaningful for a kind keep defaults.

    `peer`/`tag` are the posted ones (comm ranks; ANY or PROC_NULL allowed);
    `status` is (source, tag, bytes) of what arrived, for blocking receives;
    `completions` is [(request, source, tag, bytes)] for the wait/test
    families (source CANCELLED: the request was cancelled); `vec` holds the
    per-rank byte counts of v-collectives; `repeat` is how many calls a
    folded record stands for (a polling run), 1 otherwise.
    """

    index: int
    name: str
    kind: str
    t_entry_ns: int
    t_exit_ns: int
    comm: int = 0
    peer: int = 0
    tag: int = 0
    bytes: int = 0
    request: int = 0
    root: int = -1
    recv_peer: int = 0
    recv_tag: int = 0
    recv_bytes: int = 0
    status: tuple[int, int, int] | None = None
    vec: tuple[int, ...] | None = None
    completions: list[tuple[int, int, int, int]] | None = None
    requests: list[int] | None = None
    comm_info: CommInfo | None = None
    names: list[str] = field(default_factory=list)
    repeat: int = 1

    def copy(self) -> Call:
        """A shallow copy, as dataclasses.replace(self) makes, twenty times faster
        (replicated traces copy every call of every copy)."""
        return Call(self.index, self.name, self.kind, self.t_entry_ns, self.t_exit_ns, self.comm, self.peer, self.tag,
                    self.bytes, self.request, self.root, self.recv_peer, self.recv_tag, self.recv_bytes, self.status,
                    self.vec, self.completions, self.requests, self.comm_info, self.names, self.repeat)
