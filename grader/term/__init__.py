"""A term's gradebook over the batch journal: what a class's raw grades become once the term's rules apply
(course.toml's [deadlines] and [late]: grader.deadlines, loaded with the course).

times      when each student handed in (--submitted-at, nbgrader's timestamp.txt) and their extensions
finals     raw points (the journal's) -> final points: penalties, then overrides; changes.csv; applied
           after grading on every run, never by regrading
overrides  a TA's correction of one score, kept in the journal and on record in its audit table
"""
