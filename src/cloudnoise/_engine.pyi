"""cloudnoise's C++ LogGOPS engine"""

from collections.abc import Callable, Sequence
from typing import Annotated

import numpy
from numpy.typing import NDArray


class GoalError(ValueError):
    pass

class DeadlockError(RuntimeError):
    pass

class ReorderedDeadlockError(DeadlockError):
    pass

class ScheduleError(ValueError):
    pass

class Schedule:
    @property
    def num_ranks(self) -> int: ...

    @property
    def num_ops(self) -> int: ...

    @property
    def num_cpus(self) -> int: ...

    @property
    def num_nics(self) -> int: ...

    @property
    def num_templates(self) -> int: ...

    @property
    def memory_bytes(self) -> int: ...

    @property
    def in_order(self) -> bool:
        """
        Messages from one rank to another arrive in the order they were sent (an in-order connection; MPI's non-overtaking rule follows; set for recorded traces). False: LogGOPSim's semantics, where latency noise may reorder them.
        """

    @in_order.setter
    def in_order(self, arg: bool, /) -> None: ...

def read_goal(path: str) -> Schedule:
    """Read a GOAL text file (.gz inflated) into a Schedule."""

def parse_goal(text: bytes, name: str = '<text>') -> Schedule:
    """Parse GOAL text (bytes) into a Schedule."""

def reader_has_gzip() -> bool: ...

MAX_TIME_PS: int = 100000000000000000

MAX_MESSAGE_BYTES: int = 9007199254740992

MAX_RANKS: int = 536870911

MIN_EPISODE_FRACTION: float = 0.001

class LogGOPSParams:
    def __init__(self, L_ps: int, o_ps: int, g_ps: int, G_fs: int, O_fs: int, S: int, O_rendezvous_fs: int = -1, classes: Sequence[tuple[int, int, int, int]] = [], o_r_ps: int = -1) -> None:
        """
        LogGOPS parameters. cloudnoise's extensions: `classes`, (min_bytes, L_ps, G_fs, O_fs) per size class (empty: LogGOPSim); `o_r_ps`, the receive overhead when it differs from the send overhead o_ps (-1: o for both)
        """

    @property
    def L_ps(self) -> int: ...

    @property
    def o_ps(self) -> int: ...

    @property
    def g_ps(self) -> int: ...

    @property
    def G_fs(self) -> int: ...

    @property
    def O_fs(self) -> int: ...

    @property
    def S(self) -> int: ...

    @property
    def O_rendezvous_fs(self) -> int: ...

    @property
    def o_r_ps(self) -> int: ...

    @property
    def classes(self) -> list[tuple[int, int, int, int]]: ...

class OsNoiseTrace:
    def __init__(self, starts_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], durations_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)]) -> None: ...

    def noise(self, start_ps: int, len_ps: int) -> int:
        """Noise charged to one activity."""

    def noise_many(self, starts_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], lens_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)]) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]:
        """
        Noise of successive activities of one rank (as the engine charges them).
        """

    def quiet_span(self, start_ps: int, len_ps: int) -> tuple:
        """
        (lo, hi, end): the starts that the engine charges max(0, end - start) without a lookup, for activities of this length, after one at `start` (lo > hi: none).
        """

    @property
    def span_ps(self) -> int: ...

    def __len__(self) -> int: ...

class QuantileTable:
    def __init__(self, probabilities: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)], values: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)]) -> None: ...

    def quantile(self, u: float) -> float: ...

    def quantile_of_bits(self, bits: int) -> float:
        """
        quantile(u) for the uniform u that 64 random bits give (their top 53 over 2^53), as the engine draws it.
        """

    def __len__(self) -> int: ...

class BandwidthEpisodes:
    def __init__(self, starts_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], ends_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], fractions: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)], period_ps: int) -> None: ...

    def fraction_at(self, at_ps: int) -> float:
        """
        The bandwidth fraction at a position (wrapped by the period): 1 outside an episode.
        """

    @property
    def period_ps(self) -> int: ...

    @property
    def starts_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    @property
    def ends_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    @property
    def fractions(self) -> Annotated[NDArray[numpy.float64], dict(shape=(None,))]: ...

    def __len__(self) -> int: ...

class EpisodeProcess:
    def __init__(self, mean_quiet_ps: float, mean_cycle_ps: float, duration_ps: QuantileTable, fraction: QuantileTable, period_ps: int) -> None:
        """
        Bandwidth drops in time: quiet times exponential with mean `mean_quiet_ps`, episodes of a drawn duration (ps) at a drawn fraction of the peak, over a table of `period_ps` or, read by more hosts, 4 mean cycles (`mean_cycle_ps`) per host; each repetition draws its own table.
        """

    def draw(self, seed: int, repetition: int, hosts: int = 1) -> BandwidthEpisodes:
        """
        The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it (a function of the three alone).
        """

    def period_ps(self, hosts: int = 1) -> int:
        """A table's period when `hosts` read it."""

class LatencyStalls:
    def __init__(self, starts_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], ends_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], period_ps: int) -> None: ...

    def delay_at(self, at_ps: int) -> int:
        """
        What a message sent at a position (wrapped by the period) waits: the rest of its stall.
        """

    @property
    def period_ps(self) -> int: ...

    @property
    def starts_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    @property
    def ends_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    def __len__(self) -> int: ...

class StallProcess:
    @staticmethod
    def bursty(mean_quiet_ps: float, mean_cycle_ps: float, duration_ps: QuantileTable, stall_ps: QuantileTable, gap_ps: QuantileTable, period_ps: int) -> StallProcess:
        """
        Episodes after quiet times exponential with mean `mean_quiet_ps`, each a train of stalls (stall, gap, stall, ...) while a stall starts within its drawn duration, over a table of `period_ps` or, read by more hosts, 4 mean cycles (`mean_cycle_ps`: quiet time and episode) per host; each repetition draws its own table.
        """

    @staticmethod
    def periodic(every_ps: int, stall_ps: QuantileTable, period_ps: int) -> StallProcess:
        """
        A stall of a drawn length every `every_ps`, over a table of `period_ps`.
        """

    @staticmethod
    def recurring(mean_cycle_ps: float, stall_ps: QuantileTable, gap_ps: QuantileTable, period_ps: int) -> StallProcess:
        """
        Stalls that never stop coming: each a drawn `stall_ps` long, the next a drawn `gap_ps` after it, over a table of at least `period_ps` (or, read by more hosts, 4 mean cycles per host) that ends where its next stall would start; each repetition draws its own table.
        """

    def draw(self, seed: int, repetition: int, hosts: int = 1) -> LatencyStalls:
        """
        The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it (a function of the three alone).
        """

    def period_ps(self, hosts: int = 1) -> int:
        """A table's period when `hosts` read it."""

class LatencyLevels:
    def __init__(self, starts_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], values_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], period_ps: int) -> None:
        """
        Latency levels over a period: level k (ps, may be negative) holds from starts_ps[k] (strictly ascending, the first 0) to the next start, the last to the period.
        """

    def value_at(self, at_ps: int) -> int:
        """The level (ps) at a position (wrapped by the period)."""

    @property
    def period_ps(self) -> int: ...

    @property
    def starts_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    @property
    def values_ps(self) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]: ...

    def __len__(self) -> int: ...

class LevelProcess:
    def __init__(self, mean_hold_ps: float, level_ps: QuantileTable, period_ps: int) -> None:
        """
        Latency levels in time: each level drawn from `level_ps` (ps, may be negative) holds for a time exponential with mean `mean_hold_ps`, then the next is drawn, over a table of `period_ps` or, read by more hosts, 4 mean holds per host; each repetition draws its own table.
        """

    def draw(self, seed: int, repetition: int, hosts: int = 1) -> LatencyLevels:
        """
        The table repetition `repetition` of a run seeded `seed` reads, `hosts` hosts reading it (a function of the three alone).
        """

    def period_ps(self, hosts: int = 1) -> int:
        """A table's period when `hosts` read it."""

    @property
    def min_level_ps(self) -> int:
        """The least level a table can hold (ps)."""

    @property
    def max_level_ps(self) -> int:
        """The largest level a table can hold (ps)."""

class SwitchDraws:
    def __init__(self, near_L_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], near_G_fs: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], far_L_ps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], far_G_fs: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], nodes_per_switch: int) -> None:
        """
        The paper authors' network semantics: per-message L and per-16-MiB-block G picked from the near or far samples (rank / nodes_per_switch), rendezvous 2 L later.
        """

    @property
    def nodes_per_switch(self) -> int: ...

    @property
    def min_latency_ps(self) -> int: ...

    @property
    def random(self) -> bool: ...

    def is_far(self, from_rank: int, to_rank: int) -> bool: ...

    @staticmethod
    def blocks(bytes: int) -> int:
        """
        How many 16 MiB blocks (each its own G draw) a message's bytes are charged in.
        """

class NoiseModel:
    def __init__(self) -> None: ...

    @property
    def os(self) -> OsNoiseTrace: ...

    @os.setter
    def os(self, arg: OsNoiseTrace, /) -> None: ...

    @property
    def os_cosched(self) -> bool: ...

    @os_cosched.setter
    def os_cosched(self, arg: bool, /) -> None: ...

    @property
    def os_phase_ps(self) -> int: ...

    @os_phase_ps.setter
    def os_phase_ps(self, arg: int, /) -> None: ...

    @property
    def latency_excess_ps(self) -> QuantileTable: ...

    @latency_excess_ps.setter
    def latency_excess_ps(self, arg: QuantileTable, /) -> None: ...

    @property
    def bandwidth_fraction(self) -> QuantileTable: ...

    @bandwidth_fraction.setter
    def bandwidth_fraction(self, arg: QuantileTable, /) -> None: ...

    @property
    def bandwidth_episodes(self) -> BandwidthEpisodes: ...

    @bandwidth_episodes.setter
    def bandwidth_episodes(self, arg: BandwidthEpisodes, /) -> None: ...

    @property
    def latency_stalls(self) -> LatencyStalls: ...

    @latency_stalls.setter
    def latency_stalls(self, arg: LatencyStalls, /) -> None: ...

    @property
    def episode_process(self) -> EpisodeProcess: ...

    @episode_process.setter
    def episode_process(self, arg: EpisodeProcess, /) -> None: ...

    @property
    def stall_process(self) -> StallProcess: ...

    @stall_process.setter
    def stall_process(self, arg: StallProcess, /) -> None: ...

    @property
    def latency_stalls_shared(self) -> bool: ...

    @latency_stalls_shared.setter
    def latency_stalls_shared(self, arg: bool, /) -> None: ...

    @property
    def latency_stalls_hosts(self) -> float:
        """
        The share of hosts that stall at all, drawn per host and repetition (1: every host)
        """

    @latency_stalls_hosts.setter
    def latency_stalls_hosts(self, arg: float, /) -> None: ...

    @property
    def latency_stalls_max_bytes(self) -> int:
        """
        The largest message (bytes) the stalls hold; larger ones never wait for a stall
        """

    @latency_stalls_max_bytes.setter
    def latency_stalls_max_bytes(self, arg: int, /) -> None: ...

    @property
    def level_process(self) -> LevelProcess:
        """
        Latency levels in time: each message gets its sender's level at the send added to its latency (which stays at least -o).
        """

    @level_process.setter
    def level_process(self, arg: LevelProcess, /) -> None: ...

    @property
    def latency_levels_shared(self) -> bool:
        """
        Every host reads the levels from one offset (a level of the whole system), not each from its own
        """

    @latency_levels_shared.setter
    def latency_levels_shared(self, arg: bool, /) -> None: ...

    @property
    def latency_state_process(self) -> LevelProcess:
        """
        A latency noise state per sending host: a LevelProcess of micro normal scores (the standard normal's quantiles times 10^6) that each host reads from its own offset; with latency_state_weight w in (0, 1), a message sent at t draws its latency excess at Phi(sqrt(w) Z(t) + sqrt(1 - w) Phi^-1(u0)), u0 its own uniform: the same distribution per message, correlated while the state holds. Needs latency_excess_ps.
        """

    @latency_state_process.setter
    def latency_state_process(self, arg: LevelProcess, /) -> None: ...

    @property
    def latency_state_weight(self) -> float:
        """The latency state's weight w in [0, 1) (0, the default: no state)."""

    @latency_state_weight.setter
    def latency_state_weight(self, arg: float, /) -> None: ...

    @property
    def latency_state_part(self) -> str:
        """
        Which part of the per-message distribution the latency state moves: 'all' (the default: Phi(sqrt(w) Z + sqrt(1 - w) Phi^-1(u0))), 'body' (below the quantile latency_state_split; the tail drawn on its own) or 'tail' (how often a message lands above latency_state_split; where, its own draw), or 'both' (the body as 'body', the tail's share with a state of its own: latency_state_tail_process). Each keeps the per-message distribution.
        """

    @latency_state_part.setter
    def latency_state_part(self, arg: str, /) -> None: ...

    @property
    def latency_state_tail_process(self) -> LevelProcess:
        """
        With latency_state_part 'both': the tail's own state (a LevelProcess of micro normal scores, as latency_state_process), which moves how often a message lands above latency_state_split, while latency_state_process moves where in the body.
        """

    @latency_state_tail_process.setter
    def latency_state_tail_process(self, arg: LevelProcess, /) -> None: ...

    @property
    def latency_state_tail_weight(self) -> float:
        """With latency_state_part 'both': the tail state's weight in (0, 1)."""

    @latency_state_tail_weight.setter
    def latency_state_tail_weight(self, arg: float, /) -> None: ...

    @property
    def latency_state_split(self) -> float:
        """
        The quantile q in (0, 1) between the body and the tail, for latency_state_part 'body' or 'tail' (default 0.9).
        """

    @latency_state_split.setter
    def latency_state_split(self, arg: float, /) -> None: ...

    @property
    def switch_draws(self) -> SwitchDraws: ...

    @switch_draws.setter
    def switch_draws(self, arg: SwitchDraws, /) -> None: ...

    @property
    def switch_nominal(self) -> SwitchDraws:
        """
        With switch_draws: the noiseless network (sets of one value) against which a critical path splits each message's drawn L and G into the network's and the noise's.
        """

    @switch_nominal.setter
    def switch_nominal(self, arg: SwitchDraws, /) -> None: ...

def drawn_gaps(fraction: QuantileTable, G_fs: int, bits: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', writable=False)]) -> tuple:
    """
    For tests: the G (fs/B) that bandwidth draws of these random bits give, from the engine's per-bucket table and from the formula, and how many of the 4096 buckets the table holds.
    """

def normal_cdf(z: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)]) -> Annotated[NDArray[numpy.float64], dict(shape=(None,))]:
    """
    For tests: the engine's standard normal CDF Phi (noise/normal_scores.hpp) at each z.
    """

def normal_quantile(p: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)]) -> Annotated[NDArray[numpy.float64], dict(shape=(None,))]:
    """
    For tests: the engine's standard normal quantile Phi^-1 (noise/normal_scores.hpp) at each p (-inf at 0, inf at 1, nan outside [0, 1]).
    """

def round_to_int(values: Annotated[NDArray[numpy.float64], dict(shape=(None,), order='C', writable=False)]) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]:
    """
    For tests: the engine's rounding of drawn values to integer time units (half away from zero, as llround); OverflowError beyond int64.
    """

def replay_event_queue(times: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], stamps: Annotated[NDArray[numpy.int64], dict(shape=(None,), order='C', writable=False)], passes: int = 1) -> Annotated[NDArray[numpy.int64], dict(shape=(None,))]:
    """
    For tests: push (time, stamp) where time >= 0, pop where time is -1, on the engine's event queue (cleared and replayed `passes` times, as an engine's repetitions reuse it); returns the stamps popped.
    """

def run(schedule: Schedule, params: LogGOPSParams, noise: NoiseModel, seed: int = 0, first: int = 0, count: int = 1, threads: int = 1, program_order: bool = False, sequential: bool = False, rendezvous_windows: bool = False, progress: Callable[[int], None] | None = None, stamp_record_bits: int = 20, general: bool = False, departures: bool = False, critical_path: bool = False, path_reps: Sequence[int] = []) -> dict:
    """
    Simulate repetitions [first, first+count); returns max_end_ps per repetition, host_end_ps of the first, events, messages, and how many repetitions were processed host by host in windows (`windowed`). `sequential` forces one global event queue throughout; `rendezvous_windows` takes schedules with rendezvous messages into windows too (slower on the cases measured; for tests and benchmarks). The results are the same bit for bit either way. `stamp_record_bits` is for tests: fewer remembered stamps make the windows give up (and the repetition run again in the global order) more often. `general` forces the general event loop, never a specialised one (engine.hpp, Loop); `specialised` in the result counts the repetitions a specialised loop ran, with the same results bit for bit. `departures`: also `departures_ps` of the first repetition, each send's departure time by op index (-1 for other ops), as a ping-pong's timer reads it. `critical_path` records every repetition's critical path (off: the loops run without its hooks): the result gains path_parts (reps x PATH_PARTS, ps, each row adding up to the runtime), path_counts (reps x PATH_COUNTS), path_last_host, path_noise (rows of repetition index, host, part, ps: the noise on the path by the host it came from) and paths (the segments of the repetitions in `path_reps`, as activities() gives them).
    """

def patterns() -> list[tuple[str, str, str, str]]:
    """
    The Schedgen patterns this engine generates, as (name, description, paper, paper_description): paper is how the paper authors' Schedgen has the pattern ('same' as public Schedgen, 'differs', or 'absent'), paper_description what its variant does where it differs.
    """

def generate(pattern: str, ranks: int, size: int, nway: int = 1, segmentsize: int = 1, nb: int | None = None, schedgen: str = 'public') -> Schedule:
    """
    Generates a Schedgen collective as a Schedule (size in bytes, nb in ns).
    """

def generate_goal(pattern: str, ranks: int, size: int, path: str, nway: int = 1, segmentsize: int = 1, nb: int | None = None, schedgen: str = 'public') -> None:
    """
    Writes the collective as GOAL text identical to Schedgen's (gzip if path ends in .gz).
    """

def generate_goal_text(pattern: str, ranks: int, size: int, nway: int = 1, segmentsize: int = 1, nb: int | None = None, schedgen: str = 'public') -> str:
    """The collective as GOAL text identical to Schedgen's, as a string."""

def count_schedule(pattern: str, ranks: int, size: int, nway: int = 1, segmentsize: int = 1, nb: int | None = None, schedgen: str = 'public') -> dict:
    """Counts a collective's ops, edges and bytes without storing it."""

def write_goal(schedule: Schedule, path: str) -> None:
    """
    Writes a Schedule as GOAL text (gzip if path ends in .gz): each rank's ops, then its edges grouped by the op they wait for.
    """

def goal_text(schedule: Schedule) -> str:
    """A Schedule as GOAL text (same layout as write_goal)."""

def generate_application(ranks: int, iterations: int, phases: Sequence[tuple[str, str, int, int, int, int | None, str]]) -> Schedule:
    """
    An application (iterations x phases) as a Schedule. Each phase is a tuple ("compute", "", picoseconds, 0, 0, None) or ("collective", pattern, size, nway, segmentsize, nb_ns); see application.hpp for how phases are joined.
    """

def application_goal_text(ranks: int, iterations: int, phases: Sequence[tuple[str, str, int, int, int, int | None, str]]) -> str:
    """The application as GOAL text, as a string."""

def write_application_goal(ranks: int, iterations: int, phases: Sequence[tuple[str, str, int, int, int, int | None, str]], path: str) -> None:
    """Writes the application as GOAL text (gzip if path ends in .gz)."""

def count_application(ranks: int, iterations: int, phases: Sequence[tuple[str, str, int, int, int, int | None, str]]) -> dict:
    """Counts an application's ops, edges and bytes without storing it."""

class SpillError(RuntimeError):
    pass

def collective_rank_ops(pattern: str, ranks: int, size: int, rank: int, nway: int = 1, segmentsize: int = 1) -> tuple[list[int], list[int], list[int], list[int], list[tuple[int, int, int]]]:
    """
    One rank's ops of a Schedgen collective, exactly as generate() emits them: (kinds, amounts, peers, tags, edges), kinds 1 send / 2 recv / 3 calc, peers absolute in 0..ranks-1, edges (a, b, start): op a waits for op b to finish (start=0) or start (1).
    """

class RankOps:
    """
    One rank's ops and edges from convert_liballprof_rank; older chunks wait in a temporary file, so memory stays flat in the rank's length.
    """

    def __init__(self) -> None: ...

    @property
    def ops(self) -> int:
        """Ops stored."""

    @property
    def edges(self) -> int:
        """Edges stored."""

def convert_liballprof_rank(ops: RankOps, path: str, rank: int, offset_us: float, compute_scale: float, mpich: bool, allow_unsupported: bool, max_bytes: int, bind_indices: Sequence[int], hooks: object) -> tuple:
    """
    Converts one liballprof rank file into `ops` (cleared first), as the Python converter does, calling `hooks` (methods plan, comm_id, comm_at, comm_desc, comm_create, collective: liballprof_native._Hooks) for what needs the other ranks. Returns (converted, why_not, calls, finalize_ns, compute_ns, mpi_ns, [(name, count)], [(unsupported name, count)], [(src, dst, tag, balance, latest send call or -1, latest receive call or -1)], [(tag, MPI_ANY_SOURCE receives, latest call)], the call of the first such receive or -1); converted is False (and `ops` empty) for anything it leaves to the Python converter: damage, warnings, rare calls.
    """

class ScheduleAssembler:
    def __init__(self, ranks: int) -> None: ...

    def add_rank(self, rank: int, kinds: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], amounts: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], peers: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], tags: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_from: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_to: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_start: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> None:
        """
        Adds the next rank: its ops (kind 1/2/3, bytes or picoseconds, absolute peer, tag) and edges (edge_from waits for edge_to; start=1 for irequires).
        """

    def add_rank_ops(self, rank: int, ops: RankOps) -> None:
        """Adds the next rank from a RankOps store."""

    def finish(self) -> Schedule:
        """The Schedule (every rank must have been added)."""

class GoalAssembler:
    def __init__(self, path: str, ranks: int) -> None: ...

    def add_rank(self, rank: int, kinds: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)], amounts: Annotated[NDArray[numpy.uint64], dict(shape=(None,), order='C', device='cpu', writable=False)], peers: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], tags: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_from: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_to: Annotated[NDArray[numpy.uint32], dict(shape=(None,), order='C', device='cpu', writable=False)], edge_start: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', device='cpu', writable=False)]) -> None:
        """Writes the next rank's block of GOAL text."""

    def add_rank_ops(self, rank: int, ops: RankOps) -> None:
        """Writes the next rank's block of GOAL text from a RankOps store."""

    def close(self) -> None:
        """Flushes and closes the file (raises on a write error)."""

PATH_PARTS: tuple = ...

PATH_LINKS: tuple = ...

PATH_COUNTS: tuple = ...

def activities(schedule: Schedule, params: LogGOPSParams, noise: NoiseModel, seed: int, repetition: int, ranks: Annotated[NDArray[numpy.uint8], dict(shape=(None,), order='C', writable=False)], program_order: bool = False, general: bool = False) -> dict:
    """
    Runs one repetition recording its critical path: its segments (`path`) and every activity of the ranks whose byte in `ranks` is set (`activities`: a send's CPU part, NIC gap and flight, a message's CPU part and NIC gap at its receiver, a calc), each a table of columns (op, message, link, kind, dependency, host, cpu, nic, peer, bytes, start_ps, end_ps, parts: PATH_PARTS per row, in ps).
    """
