"""cloudnoise.report stage."""
