"""cloudnoise.schedules stage: Schedgen's collective patterns, generated in C++.

`patterns` (CollectiveSpec, generate, write_goal, count), `sizes` (16MiB,
5us), `cli` (`cloudnoise schedule generate|list`).
"""
