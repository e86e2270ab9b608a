"""Measurements made elsewhere, turned into ordinary cloudnoise campaigns.

One reader per tool (``netgauge.py`` first). Each writes what cloudnoise's own
probes would have written (chunk files, raw records, info files) into a
campaign folder and converts it with the measure stage's own code
(``measurement.stream``, ``measurement.runner.finalize``), so ``model build``,
``report`` and every figure read an imported campaign exactly as a measured
one: nothing downstream knows where the samples came from. The provenance
(source, tool version, command lines, hosts, what was dropped) is kept under
``import`` in the campaign's metadata.json.
"""
