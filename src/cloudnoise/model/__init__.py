"""cloudnoise.model stage."""
