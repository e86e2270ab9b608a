"""cloudnoise.report stage: `cloudnoise report` turns campaigns, sweeps and
profiles into one self-contained HTML page with figures (PNG + PDF) and
observations computed from the data.

Modules: ``data`` (load campaigns and sweeps), ``measured`` (noise-over-time
and per-size views of samples), ``table2`` (the Table II rows), ``costs``
(cost per run and due to noise), ``observations`` (sentences with their
numbers), ``figures`` (one module per figure family), ``build`` (assemble the
sections), ``html`` (render the Jinja2 template), ``cli`` (the command).
"""
