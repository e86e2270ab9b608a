"""Cartesian grids as MPI lays them out: MPI_Dims_create's balanced dims, and
row-major coordinates (the last dimension varies fastest), shared by the
liballprof reader (grids the trace does not spell out) and extrapolation."""

from __future__ import annotations


def dims_create(n: int, ndims: int) -> tuple[int, ...]:
    """MPI_Dims_create(n, ndims) with no fixed dims: factors as equal as possible, non-increasing."""
    dims = [1] * ndims
    factors: list[int] = []
    m, f = n, 2
    while f * f <= m:
        while m % f == 0:
            factors.append(f)
            m //= f
        f += 1
    if m > 1:
        factors.append(m)
    for f in sorted(factors, reverse=True):
        dims[dims.index(min(dims))] *= f
    return tuple(sorted(dims, reverse=True))


def coords_of(rank: int, dims: tuple[int, ...]) -> list[int]:
    out = []
    for d in reversed(dims):
        out.append(rank % d)
        rank //= d
    return out[::-1]


def rank_of(coords: list[int], dims: tuple[int, ...]) -> int:
    r = 0
    for c, d in zip(coords, dims):
        r = r * d + c
    return r
