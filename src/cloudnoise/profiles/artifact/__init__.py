"""The paper's systems built from the authors' published measurements (their artifact)."""
