"""cloudnoise.measurement: the measurement stage (MPI probes, campaigns, streaming summaries).

The public function is `cloudnoise.measure` (defined in `api.measure`); this
package holds the stage's modules. It was called `cloudnoise.measure` before
the public API became plain functions.
"""
