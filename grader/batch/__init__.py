"""Grading a whole class: one command over a folder of submissions, parallel, resumable, crash-safe.

discover   one entry per student in SUBMISSIONS (a folder or a .zip), sorted by student id (roster.py)
key        a hash of the submission's content and of the course: what is graded and unchanged is skipped (keys.py)
check      whether this machine's sandbox may grade the class, and its files are not exposed (preflight.py)
grade      workers (local processes, or tasks on a Dask cluster) each keep a sandbox and grade one student at a time
record     each student's report and feedback written atomically, then the journal row (grader.store, SQLite, WAL)
export     grades.csv and the class summary, rebuilt from the journal with the term's rules applied (grader.term:
           late policy, overrides; changes.csv), never by regrading (run.py orchestrates it all)
"""
