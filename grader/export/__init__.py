"""Exporters of the result model (grader.results): one module per format."""
