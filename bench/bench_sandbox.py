"""Per-check cost of the sandbox, beside its baselines: `python bench/bench_sandbox.py [--checks N]`.

plain fork      a torch-preloaded process forks a child that runs a tiny torch op and exits
                (the zygote model with no protections, no sockets)
sandboxed check Sandbox.open + one call of a tiny function + close, with whatever protections
                this machine allows (`grade doctor`): the first check of an exercise
reused process  one more check in an exercise's existing student process (begin_check + call),
                what most checks cost since an exercise's checks share a process
fresh import    `python -c "import torch"`, what a check would cost without a zygote
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader.sandbox.doctor import summary  # noqa: E402
from grader.sandbox.host import Limits, Sandbox  # noqa: E402

PLAIN_FORK = """
import os, sys, time, torch
torch.zeros(3) + 1
n = int(sys.argv[1])
start = time.perf_counter()
for _ in range(n):
    pid = os.fork()
    if pid == 0:
        torch.set_num_threads(1)
        torch.zeros(3) + 1
        os._exit(0)
    os.waitpid(pid, 0)
print((time.perf_counter() - start) / n)
"""


def plain_fork(n: int) -> float:
    done = subprocess.run([sys.executable, "-c", PLAIN_FORK, str(n)], capture_output=True, text=True, check=True, env={**os.environ, "OMP_NUM_THREADS": "1"})
    return float(done.stdout)


def sandboxed_check(n: int) -> tuple[float, float, str]:
    """Seconds per check in a fresh student process, and in a reused one; the protections."""
    import torch

    box = Sandbox.start(course_root=ROOT, device="cpu", limits=Limits(time_limit=10.0, memory_mib=4096))
    with tempfile.TemporaryDirectory() as workspace:
        Path(workspace, "tiny.py").write_text("def add_one(x):\n    return x + 1\n")
        x = torch.zeros(3)
        protections = box.protections
        box.open(Path(workspace)).close()  # warm up
        start = time.perf_counter()
        for _ in range(n):
            process = box.open(Path(workspace))
            process.begin_check()
            process.call("tiny", "add_one", [x], {})
            process.close()
        fresh = (time.perf_counter() - start) / n
        process = box.open(Path(workspace))
        start = time.perf_counter()
        for _ in range(n):
            process.begin_check()
            process.call("tiny", "add_one", [x], {})
        reused = (time.perf_counter() - start) / n
        process.close()
    box.close()
    return fresh, reused, summary([asdict(p) for p in protections])


def fresh_import(n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        subprocess.run([sys.executable, "-c", "import torch"], check=True)
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checks", type=int, default=50, help="checks per measurement (default 50)")
    n = parser.parse_args().checks
    fork = plain_fork(n)
    sandboxed, reused, protections = sandboxed_check(n)
    fresh = fresh_import(max(1, n // 10))
    print(protections)
    print(f"{'per check':<18}{'ms':>10}{'× plain fork':>15}")
    rows = (("plain fork", fork), ("sandboxed check", sandboxed), ("reused process", reused), ("fresh import", fresh))
    for name, seconds in rows:
        print(f"{name:<18}{seconds * 1e3:>10.1f}{seconds / fork:>15.1f}")
    print(f"isolation cost over a plain fork: {(sandboxed - fork) * 1e3:.1f} ms per check")


if __name__ == "__main__":
    main()
