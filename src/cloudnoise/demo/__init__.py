"""`cloudnoise demo`: the whole pipeline on this machine, end to end.

measure (2 ranks here) -> model (this machine's profile) -> sweep (this
machine beside the paper's cloud and HPC systems, at scale, with and
without noise) -> cost -> report. What each step does and how long it takes
is in `plan.py`; the orchestration in `pipeline.py`.
"""
