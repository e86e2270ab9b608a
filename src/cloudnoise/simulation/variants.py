"""The names a simulation is run under: the paper's noise variants and the ready orders.

Kept apart (the lowest floor of `simulate`) because the API, the noise setup
and the sweep all need them, and none of those may import the others for it.
"""

from __future__ import annotations

# Sec. V: no noise, OS noise only, network (latency and bandwidth) noise only, both.
VARIANTS = ("none", "os", "network", "both")

# How ops that become ready together are ordered: program order (MPI's posting
# order, the default) or LogGOPSim's unstable sort, reproduced exactly.
READY_ORDERS = ("program", "loggopsim")
