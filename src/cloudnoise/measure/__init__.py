"""cloudnoise.measure stage."""
