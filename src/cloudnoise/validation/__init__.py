"""`cloudnoise validate`: run a GOAL schedule on real MPI ranks and compare
its measured runtime distribution with the LogGOPS simulation of the same
schedule (the paper's Sec. V-A, Fig. 13)."""
