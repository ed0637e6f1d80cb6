"""Everything that runs in the zygote or a student process: the wire, the zygote, isolation, the runtime and the given course code.

The trust boundary is this package's edge: modules here import only the standard library, torch,
safetensors and `grader.inside` itself (tests/test_boundary.py proves it), so a student process
holds no check, no reference and no expected value. Everything else in `grader` runs in the
grading process and believes nothing a student process sends without checking it.
"""
