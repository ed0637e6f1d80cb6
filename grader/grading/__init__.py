"""Grading one submission: the pipeline, the pytest plugin that runs checks, answer sheets and formula equivalence."""
