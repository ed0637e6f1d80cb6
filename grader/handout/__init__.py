"""The student's side: the release bundle (release.py), the hand-in zip (pack.py) and the Gradescope autograder (gradescope.py)."""
