"""A student's re-check, side by side with fresh `import torch` runs in the same run.

    python bench/bench_student.py [--repeat 5]

In a student bundle as `grade release` writes it (a temporary folder whose own grader package the `grade` command
imports through PYTHONPATH, with this venv's torch: no pip install), with the reference gated.py as the student's
ex05, each figure measured once per round, round after round (a machine whose speed drifts moves them alike), and
its median shown beside the median import:
  import torch     a fresh `python -c "import torch"`: the baseline
  cold run         `grade run ex05` with GRADE_WARM=0: as before the warm process (torch in the CLI and in the zygote)
  warm re-run      `grade run ex05` answered by the folder's warm process: the whole command, as the student waits
  watch re-check   `grade watch ex05` after a save: from its line naming the save to its line saying it watches again
  watch, save to   the same from the moment of the save: what the student waits, the 0.3 s poll included
Goals: a warm re-run at most 0.5 of an import, a watch re-check at most 0.15. Every warm re-run must print what the
cold run printed, and be answered warm; the bench stops where one is not.
"""

from __future__ import annotations

import argparse
import os
import queue
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
GRADE = Path(sys.executable).parent / "grade"  # this venv's entry point (grader.entry)
GATED = "exercises/ex05_gated_steps/gated.py"


def timed(command: list[str], **kwargs: object) -> tuple[float, subprocess.CompletedProcess]:
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False, **kwargs)  # type: ignore[call-overload]
    return time.perf_counter() - start, done


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    rounds = parser.parse_args().repeat
    from grader.warm.client import ask

    with tempfile.TemporaryDirectory() as tmp:
        bundle = Path(tmp) / "bundle"
        subprocess.run([sys.executable, "-m", "grader.cli", "release", "--out", str(bundle)], cwd=ROOT, check=True, capture_output=True)
        reference = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text(encoding="utf-8")
        (bundle / GATED).write_text(reference, encoding="utf-8")
        env = os.environ | {"PYTHONPATH": str(bundle), "PYTHONUNBUFFERED": "1"}
        warm_env, cold_env = env | {"GRADE_WARM": "1"}, env | {"GRADE_WARM": "0"}

        def run(environment: dict[str, str]) -> tuple[float, subprocess.CompletedProcess]:
            return timed([str(GRADE), "run", "ex05"], cwd=bundle, env=environment)

        run(warm_env)  # cold: it leaves the folder's warm process, which warms up
        deadline = time.monotonic() + 300
        while ask(bundle, "status") is None:
            if time.monotonic() > deadline:
                print("no warm process answered")
                return 1
            time.sleep(0.2)
        # grade watch beside it, with GRADE_WARM=0 so that the detached process keeps the folder's socket and the warm
        # re-runs measure it, not the watch.
        watch = subprocess.Popen([str(GRADE), "watch", "ex05"], cwd=bundle, env=cold_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines: queue.SimpleQueue[tuple[float, str]] = queue.SimpleQueue()
        threading.Thread(target=lambda: [lines.put((time.perf_counter(), line)) for line in watch.stdout or ()], daemon=True).start()

        def watched() -> tuple[float, float]:
            """When watch printed its line naming a save, and when its next line saying it watches again."""
            saved = 0.0
            while not (got := lines.get(timeout=300))[1].startswith("watching your files"):
                saved = saved or (got[0] if " saved: " in got[1] else 0.0)
            return saved, got[0]

        figures: dict[str, list[float]] = {"import torch": [], "cold run": [], "warm re-run": [], "watch re-check": [], "watch, save to table": []}
        try:
            watched()  # its first check
            for n in range(rounds):
                figures["import torch"].append(timed([sys.executable, "-c", "import torch"])[0])
                cold, cold_done = run(cold_env)
                before = ask(bundle, "status") or {}
                warm, warm_done = run(warm_env)
                if (warm_done.stdout, warm_done.stderr, warm_done.returncode) != (cold_done.stdout, cold_done.stderr, cold_done.returncode):
                    print("the warm re-run printed other than the cold run:\n" + warm_done.stdout + warm_done.stderr)
                    return 1
                if (ask(bundle, "status") or {}).get("answered") != before.get("answered", -1) + 1:
                    print("a re-run was not answered by the warm process")
                    return 1
                figures["cold run"].append(cold)
                figures["warm re-run"].append(warm)
                saving = time.perf_counter()
                (bundle / GATED).write_text(reference + f"\n# round {n}\n", encoding="utf-8")
                saved, checked = watched()
                figures["watch re-check"].append(checked - saved)
                figures["watch, save to table"].append(checked - saving)
        finally:
            watch.send_signal(signal.SIGINT)
            watch.wait(timeout=60)
            server, until = (ask(bundle, "status") or {}).get("pid"), time.monotonic() + 30
            ask(bundle, "stop")
            while server and Path(f"/proc/{server}").exists() and time.monotonic() < until:
                time.sleep(0.1)  # its sandbox closed before the bundle goes
    report(figures, rounds)
    return 0


def report(figures: dict[str, list[float]], rounds: int) -> None:
    median: Callable[[list[float]], float] = statistics.median
    baseline = median(figures["import torch"])
    goals = {"warm re-run": 0.5, "watch re-check": 0.15}
    print(f"grade run ex05 in a student bundle, reference gated.py; medians of {rounds} rounds")
    print(f"{'':24}{'seconds':>10}{'× import torch':>16}   goal")
    for name, values in figures.items():
        goal = f"≤ {goals[name]}" if name in goals else ""
        print(f"{name:24}{median(values):10.3f}{median(values) / baseline:16.3f}   {goal}")


if __name__ == "__main__":
    sys.exit(main())
