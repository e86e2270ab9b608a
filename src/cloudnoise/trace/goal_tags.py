"""How a converted trace's messages are tagged in GOAL, so that messages of
different communicators and of different collective calls never match.

A point-to-point tag is the user's tag (its low 24 bits) with the
communicator's code (0 for MPI_COMM_WORLD, 1..62 for the others) above it;
collective call k on a communicator sets bit 30, the communicator's code and
k (low 24 bits). Every tag stays below 2^31 (LogGOPSim reads it as an int).
An any-source receive names ANY_PEER as its peer.
"""

from __future__ import annotations

import zlib

ANY_PEER = 0xFFFFFFFF
TAG_BITS = 24
TAG_MASK = (1 << TAG_BITS) - 1
COLL_FLAG = 1 << 30
COMM_CODES = 62  # codes 1..62 for communicators other than MPI_COMM_WORLD


def comm_code(key: tuple) -> int:
    """0 for MPI_COMM_WORLD, 1..62 for any other communicator (same on every
    member, and in every run: Python's hash() of a string changes from process
    to process, so parts that are not ints are hashed by their CRC-32)."""
    if key == ("world",):
        return 0
    h = 0
    for part in key:
        h = (h * 1000003 + (part if isinstance(part, int) else zlib.crc32(repr(part).encode()))) & 0xFFFFFFFF
    return 1 + h % COMM_CODES


def user_tag(tag: int) -> int:
    """The application's tag in a GOAL tag (for messages that name it)."""
    return tag & TAG_MASK
