"""Why a run takes as long as it does: its critical path, split by kind, over the repetitions.

The stage between simulation and sweep: it runs the engine with the critical path
recorded (src/engine/critical_path.hpp) and reads it: each kind's share of the
runtime (`decomposition`), the slowdown from the noiseless run by noise
(`attribution`), the ranks whose noise lies on the path (`hosts`), the runtime's
derivatives by the LogGOPS terms on it (`sensitivity`), the latency and OS noise a run
tolerates (`tolerance`), and a timeline of chosen repetitions (`timeline`, written by a
writer per format: `timeline_chrome`).
`api.explain` is the Python face, `cli` the command (`cloudnoise explain`).
"""
