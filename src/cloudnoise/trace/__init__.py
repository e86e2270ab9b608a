"""cloudnoise.trace stage: MPI traces of real applications.

Record (`record`: the PMPI recorder, cn_trace.c, run under the user's
mpiexec), read (one reader per format behind `reader.TraceReader`: `native`,
`liballprof`, `otf2`), turn into a GOAL schedule (`convert`, collectives
expanded by `collectives`), scale out (`extrapolate`), and the CLI (`cli`:
`cloudnoise trace record|convert|extrapolate|show|lib`). A trace becomes a
schedule here; `simulate` and `validate` only receive the schedule.
"""
