"""cloudnoise.paper: the paper's Sec. V reproduced as a command.

`statements.py` holds every quantitative statement of Sec. V (Fig. 14-17,
Obs. 8-10) as data, each marked as a calibration target or held out;
`reproduce.py` runs the simulations they need through `sweep` and checks
them; `table.py` renders the result; `causes.py` says why a statement that
disagrees does. The report shows the same table (cloudnoise.report).
"""
