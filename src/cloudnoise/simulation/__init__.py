"""cloudnoise.simulation: the simulation stage (LogGOPS engine, repetitions, noise).

The public function is `cloudnoise.simulate` (defined in `api.simulate`); this
package holds the stage's modules. It was called `cloudnoise.simulate` before
the public API became plain functions.
"""
