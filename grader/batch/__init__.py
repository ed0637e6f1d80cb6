"""Grading a whole class: one command over a folder of submissions, parallel, resumable, crash-safe.

discover   one entry per student in SUBMISSIONS (a folder or a .zip), sorted by student id
key        a hash of the submission's content and of the course: what is graded and unchanged is skipped
grade      workers (local processes, or tasks on a Dask cluster) each keep a sandbox and grade one student at a time
record     each student's report and feedback written atomically, then the journal row (SQLite, WAL)
export     grades.csv and the class summary, rebuilt from the journal with the term's rules applied (grader.term:
           late policy, overrides; changes.csv), never by regrading
"""
