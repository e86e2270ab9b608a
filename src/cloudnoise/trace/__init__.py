"""cloudnoise.trace stage: MPI traces of real applications.

Record (`record`: the PMPI recorder, cn_trace.c, run under the user's
mpiexec), read (one reader per format behind `reader.TraceReader`: `native`,
`liballprof`, `otf2`; `liballprof_comms` works out who is in each
communicator of a liballprof trace, as world ranks), turn into a GOAL
schedule (`convert`, collectives expanded by `collectives`), scale out
(`extrapolate` for regular SPMD programs, `replicate` for the others; grids
in `grid`), and the CLI (`cli`:
`cloudnoise trace record|convert|extrapolate|show|lib`). A trace becomes a
schedule here; `simulate` and `validate` only receive the schedule.
"""
