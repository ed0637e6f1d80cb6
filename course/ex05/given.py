"""ex05's process receives no course code, and library recurrent cells do not work in it."""

from grader.inside.given import block_library_cells


def prepare() -> None:
    block_library_cells("ex05")
