"""Course code – references, hidden checks – imported into the grading process, once per file (keyed by its path, so
two courses' files of one name stay apart). Never a submission: student code runs only in its own process."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType


def load(path: Path) -> ModuleType:
    """The module at `path`, imported the first time it is asked for; ImportError naming it if it is none."""
    key = f"_reference_{abs(hash(str(path)))}_{path.stem}"
    if key not in sys.modules:
        spec = importlib.util.spec_from_file_location(key, path)
        if spec is None or spec.loader is None:
            raise ImportError(f"{path}: not a Python module")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[key] = module
    return sys.modules[key]
