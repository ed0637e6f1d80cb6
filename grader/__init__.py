"""Autograder for the LSTM/GRU course chapter: course model, sandboxed student processes, checks, CLI."""
