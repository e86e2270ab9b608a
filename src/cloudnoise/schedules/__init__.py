"""cloudnoise.schedules stage."""
