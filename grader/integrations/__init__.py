"""How the course plugs into the graders around it: each integration one folder (Gradescope, nbgrader)."""
