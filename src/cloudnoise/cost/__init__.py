"""cloudnoise.cost stage."""
