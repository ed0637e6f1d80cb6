"""Gradescope: the autograder zip (`bundle`), the runner it calls there (`runner`) and what a student uploaded (`upload`)."""
