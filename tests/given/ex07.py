"""ex07's hidden checks run the course's own step functions – ex05's reference – so a wrong ex05 costs nothing here.

This is ex05's answer: it lives with the hidden checks, reaches only ex07's student process while
it is graded (loaded there from solutions/ before isolation), and never ships in a student bundle.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Callable

from grader.inside.given import builder

_SPEC = importlib.util.spec_from_file_location(
    "given_ex05_reference", Path(__file__).resolve().parents[2] / "solutions" / "ex05_gated_steps" / "gated.py")
_REFERENCE = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(_REFERENCE)


@builder
def lstm_step(*, device) -> Callable:
    """The chapter's LSTM step (answer key item 5), keyword parameters W_i … b_c."""
    return _REFERENCE.lstm_step


@builder
def gru_step(*, device) -> Callable:
    """The chapter's GRU step (answer key item 5), h_new = z*h + (1 - z)*candidate."""
    return _REFERENCE.gru_step
