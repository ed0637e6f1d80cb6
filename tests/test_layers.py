"""Does each package ("room") of grader/ import only rooms of its own layer or below, without a cycle among them?

A room is a subpackage of grader/ (`grader.batch`, all its modules together) or a module directly in grader/
(`grader.text`); `grader` itself is its empty `__init__.py`. Every `import` and `from ... import` counts wherever it
stands – at the top, inside a function (the lazy imports that keep start-up light), under `if TYPE_CHECKING:` – since
each is a dependency the layering must allow: an annotation naming a room above is as much a tangle as a call into it,
and a lazy import only hides a cycle until the day it runs first. An import of a room's own modules, or of a parent
package (which Python runs anyway), is not an edge.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

GRADER = Path(__file__).resolve().parents[1] / "grader"


# Bottom to top: a room may import rooms of its own layer or below. The trust boundary is the ground: grader.inside
# imports no other room (test_boundary.py says what else it may import). The entries of grade's processes are the roof.
LAYERS = (
    ("grader", "text", "errors", "location", "inside"),
    ("results", "rubric", "deadlines", "variants"),
    ("failures",),
    ("course", "course_modules"),
    ("submissions", "sandbox"),
    ("grading",),
    ("checks",),
    ("store",),
    ("term",),
    ("export",),
    ("batch",),
    ("similarity", "integrations", "handout", "warm"),
    ("api",),
    ("cli",),
    ("entry",),
)


def _module(path: Path) -> str:
    parts = path.relative_to(GRADER.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _room(module: str) -> str:
    """`grader.batch.run` -> `batch`, `grader.text` -> `text`, `grader` -> `grader`."""
    parts = module.split(".")
    return "grader" if len(parts) == 1 else parts[1]


def _imported(tree: ast.Module, package: str, modules: set[str]) -> set[str]:
    """The grader modules a module's imports name, at any depth of its tree; `package`: where its relative imports start."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            submodules = {f"{source}.{a.name}" for a in node.names} & modules
            # `from grader import api` imports grader.api; `from grader.text import Text` imports grader.text
            found |= submodules if submodules else {source}
    return {m for m in found if m in modules}


def room_graph() -> dict[str, set[str]]:
    """room -> the other rooms its modules import."""
    paths = {_module(p): p for p in GRADER.rglob("*.py")}
    modules = set(paths)
    edges: dict[str, set[str]] = {}
    for module, path in paths.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        room = _room(module)
        edges.setdefault(room, set())
        edges[room] |= {_room(m) for m in _imported(ast.parse(path.read_text(encoding="utf-8")), package, modules)} - {room}
    return edges


def cycle(edges: dict[str, set[str]], rooms: set[str]) -> list[str]:
    """A cycle among `rooms` (each room then the one it imports, back to the first), or [] when there is none."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(room: str) -> list[str]:
        state[room] = 1
        path.append(room)
        for other in sorted(edges.get(room, set()) & rooms):
            if state.get(other) == 1:
                return [*path[path.index(other) :], other]
            if other not in state and (found := visit(other)):
                return found
        path.pop()
        state[room] = 2
        return []

    for room in sorted(rooms):
        if room not in state and (found := visit(room)):
            return found
    return []


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return room_graph()


def test_every_room_has_a_layer(graph):
    """Is every room of grader/ placed in exactly one layer (a new package is placed when it is made)?"""
    placed = [room for layer in LAYERS for room in layer]
    assert len(placed) == len(set(placed)), "a room in two layers"
    assert set(graph) == set(placed), f"not placed: {sorted(set(graph) - set(placed))}; no such room: {sorted(set(placed) - set(graph))}"


def test_no_room_imports_a_room_above_it(graph):
    """Does each room import only rooms of its own layer or below?"""
    level = {room: n for n, layer in enumerate(LAYERS) for room in layer}
    upward = [f"{room} -> {other}" for room in sorted(graph) for other in sorted(graph[room]) if level[other] > level[room]]
    assert not upward, "imports of a room in a higher layer: " + ", ".join(upward)


def test_no_cycle(graph):
    """Is the import graph of the rooms free of cycles, within a layer too (no two rooms import each other, through any
    path)?"""
    assert cycle(graph, set(graph)) == []


def test_the_cycle_finder_finds_a_cycle():
    """Does `cycle` name a cycle where there is one, and none in a chain?"""
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}, {"a", "b", "c"}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": {"c"}}, {"a", "b", "c"}) == []
