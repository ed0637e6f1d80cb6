"""How `grade similarity` grows with the class: 50, 100 and 200 synthetic students on ex05, each size beside the
smallest, and the share of the time that reading the entries (what any tool pays once per student) takes.

    python bench/bench_similarity.py [--sizes 50,100,200] [--seed 0] [--repeat 3]

Each synthetic student is the reference of ex05 disguised at random – every local name renamed, the functions
shuffled, a few lines of their own added – and one in ten hands in the stub as given: nearly every pair overlaps
almost entirely, the costliest case to compare (independent solutions share far less). Reading is linear in the class;
comparing every pair is quadratic (n(n−1)/2 pairs), so the ratio of a size's time to the smallest's lies between
n/50 and (n/50)²: the figures say where.

First, what one huge hand-in costs: a class of 5 timed with and without one student's file grown to 1 MB (just under
the workspace's 1 MiB limit a file) by copies of disguised solutions – code like everyone else's, the costliest to
compare – side by side, with the ratio (a file is fingerprinted up to its first FINGERPRINTED bytes). Each time is
the shortest of --repeat runs.
"""

from __future__ import annotations

import argparse
import ast
import io
import random
import sys
import tempfile
import time
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from grader import api  # noqa: E402
from grader import similarity as alike  # noqa: E402

STUB = (ROOT / "exercises" / "ex05_gated_steps" / "gated.py").read_text()
REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
_TREE = ast.parse(REFERENCE)
# The names a student may choose: what the reference assigns, its helpers and their parameters (not the stub's).
LOCAL = (
    {n.id for n in ast.walk(_TREE) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    | {f.name for f in _TREE.body if isinstance(f, ast.FunctionDef) and f.name.startswith("_")}
    | {a.arg for f in _TREE.body if isinstance(f, ast.FunctionDef) and f.name.startswith("_") for a in f.args.args}
)


def student(rng: random.Random) -> str:
    """The reference with its local names renamed, its functions shuffled and a few lines of its own."""
    lines = REFERENCE.splitlines(keepends=True)
    head = "".join(lines[: _TREE.body[0].end_lineno])
    functions = ["".join(lines[n.lineno - 1 : n.end_lineno]) for n in _TREE.body if isinstance(n, ast.FunctionDef)]
    imports = "".join(lines[n.lineno - 1] for n in _TREE.body if isinstance(n, ast.Import | ast.ImportFrom))
    rng.shuffle(functions)
    own = "".join(f"NOTE_{k} = {rng.randint(0, 999)} * {rng.randint(0, 9)}\n" for k in range(rng.randint(0, 6)))
    source = f"{head}\n{imports}\n{own}\n\n" + "\n\n".join(functions)
    names: dict[str, str] = {}
    tokens = []
    for t in tokenize.generate_tokens(io.StringIO(source).readline):
        text = t.string
        if t.type == tokenize.NAME and text in LOCAL:
            text = names.setdefault(text, f"{text}_{rng.randint(0, 99)}")
        tokens.append((t.type, text))
    return tokenize.untokenize(tokens)


def make_class(folder: Path, n: int, rng: random.Random) -> None:
    for k in range(n):
        (folder / f"s{k:03d}" / "ex05_gated_steps").mkdir(parents=True)
        (folder / f"s{k:03d}" / "ex05_gated_steps" / "gated.py").write_text(STUB if k % 10 == 9 else student(rng))


def huge(rng: random.Random) -> str:
    """Disguised solutions one after another, to 1 MB."""
    parts, size = [], 0
    while size < 1_000_000:
        parts.append(student(rng))
        size += len(parts[-1].encode())
    return "\n\n".join(parts).encode()[:1_000_000].decode("utf-8", "ignore")


def best(work, repeat: int) -> float:
    """The shortest of `repeat` runs of `work()` in seconds (the machine is shared: the others are its noise)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="50,100,200")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    course = api.course(root=ROOT)
    exercises = api.select(course, ["ex05"])
    alike.compare(course=course, exercises=exercises, submissions=ROOT / "examples")  # imports warmed: not timed
    figures = []
    with tempfile.TemporaryDirectory() as tmp:
        plain, grown = Path(tmp) / "five", Path(tmp) / "five-huge"
        make_class(plain, 5, random.Random(args.seed))
        make_class(grown, 5, random.Random(args.seed))
        (grown / "s000" / "ex05_gated_steps" / "gated.py").write_text(huge(random.Random(args.seed + 1)))
        seconds = [
            best(lambda k=klass: api.similarity(course=course, exercises=exercises, submissions=k, out=Path(tmp) / "out5"), args.repeat)
            for klass in (plain, grown)
        ]
        print(f"{'class of 5':>10} {'seconds':>8} {'with one 1 MB file':>19} {'ratio':>6}")
        print(f"{'':>10} {seconds[0]:>8.3f} {seconds[1]:>19.3f} {seconds[1] / seconds[0]:>6.2f}")
        for n in sizes:
            klass = Path(tmp) / f"class{n}"
            make_class(klass, n, random.Random(args.seed))
            start = time.perf_counter()
            alike.read_texts(klass, exercises, [], [], label="")
            reading = time.perf_counter() - start
            start = time.perf_counter()
            api.similarity(course=course, exercises=exercises, submissions=klass, out=Path(tmp) / f"out{n}")
            total = time.perf_counter() - start
            figures.append((n, total, reading))
    base_n, base_total = figures[0][0], figures[0][1]
    print(f"{'students':>8} {'pairs':>7} {'seconds':>8} {'reading':>8} {'vs ' + str(base_n):>7} {'linear':>7} {'quadratic':>9}")
    for n, total, reading in figures:
        print(f"{n:>8} {n * (n - 1) // 2:>7} {total:>8.2f} {reading / total:>7.0%} {total / base_total:>7.2f} {n / base_n:>7.2f} {(n / base_n) ** 2:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
