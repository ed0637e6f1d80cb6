"""The grading process's side of student processes: start the zygote (host), call into a submission (proxy), report protections (doctor)."""
