"""Everything that runs in the zygote or a student process: the wire, the zygote, isolation, the runtime, the loader of the
given course code (which lives in the course tree, course/<id>/) and the course folder's layout.

The trust boundary is this package's edge: modules here import only the standard library, torch,
safetensors and `grader.inside` itself (tests/test_boundary.py proves it), so a student process
holds no check, no reference and no expected value. Everything else in `grader` runs in the
grading process and believes nothing a student process sends without checking it.
"""
