"""What a batch keeps in OUT's journal (SQLite, WAL), below the batch that grades and the term that applies its rules.

journal    one row per graded student (the whole result model, keyed by submission and course), and the statements
           the term's tables run on the same file
audit      the append-only audit trail: one row for every change of a score
published  what OUT's files last showed of each student's exercises, written after them
"""
