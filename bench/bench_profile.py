"""Where a warm grader's time goes on one submission, exercise by exercise, in CPU seconds and against a fresh `import torch`.

    python bench/bench_profile.py [--repeat 5] [--submission solutions]

For each exercise graded alone, then for the whole submission, the means over --repeat rounds of: the wall time,
the CPU time of the grading process (its checks, the pytest session, the wire), of its student processes (fork to
exit: isolation, the submission's import and calls, their replies) and of the zygote (forking and reaping them).
CPU time is what a batch worker pinned to one CPU pays for a student, whatever else the machine runs; the last lines
are one sandboxed student process that imports a one-line module, calls it once and ends (the per-fork cost), and a
fresh `import torch` measured in the same run.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> tuple[float, float]:
    """CPU seconds of process `pid` itself and of its children it has reaped (utime + stime of each, from /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK, (int(fields[13]) + int(fields[14])) / TICK


def measure(zygote: int, work) -> tuple[float, float, float, float]:
    """Wall, grading-process CPU, student-process CPU and zygote CPU seconds of `work()`."""
    own, students = cpu_of(zygote)
    cpu, start = time.process_time(), time.perf_counter()
    work()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    own_after, students_after = cpu_of(zygote)
    return wall, cpu, students_after - students, own_after - own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--submission", type=Path, default=ROOT / "solutions")
    args = parser.parse_args()

    import torch

    from grader.course import load_course
    from grader.grading.pipeline import Grader

    course = load_course(ROOT)
    exercises = [e for e in course.exercises if e.available]
    rows: dict[str, list[tuple[float, float, float, float]]] = {}
    with Grader(course, exercises, "cpu") as grader:
        assert grader.sandbox is not None
        zygote = grader.sandbox.pid
        grader.grade(args.submission)  # the first run imports the checks and the references
        for _ in range(args.repeat):
            for e in exercises:
                rows.setdefault(e.id, []).append(measure(zygote, lambda e=e: grader.grade(args.submission, exercises=[e])))
            rows.setdefault("all", []).append(measure(zygote, lambda: grader.grade(args.submission)))
        with tempfile.TemporaryDirectory() as folder:
            Path(folder, "tiny.py").write_text("def add_one(x):\n    return x + 1\n")
            x = torch.zeros(3)

            def one_process() -> None:
                process = grader.sandbox.open(Path(folder))  # type: ignore[union-attr]
                process.begin_check()
                process.call("tiny", "add_one", [x], {})
                process.close()

            one_process()
            rows["one process"] = [measure(zygote, one_process) for _ in range(10 * args.repeat)]
    start = time.perf_counter()
    for _ in range(args.repeat):
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
    fresh = (time.perf_counter() - start) / args.repeat

    print(f"{'ms (mean)':<14}{'wall':>8}{'grader':>9}{'students':>10}{'zygote':>8}{'CPU':>8}{'CPU/import':>12}")
    for name, runs in rows.items():
        wall, cpu, students, own = (1000 * statistics.fmean(column) for column in zip(*runs))  # /proc counts in ticks
        total = cpu + students + own
        print(f"{name:<14}{wall:8.0f}{cpu:9.0f}{students:10.0f}{own:8.0f}{total:8.0f}{total / 1000 / fresh:12.3f}")
    print(f"fresh import torch: {1000 * fresh:.0f} ms (wall)")


if __name__ == "__main__":
    main()
