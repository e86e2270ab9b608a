"""cloudnoise.profiles stage."""
