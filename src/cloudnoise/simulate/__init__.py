"""cloudnoise.simulate stage."""
