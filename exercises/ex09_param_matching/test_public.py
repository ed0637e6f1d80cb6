"""Public checks for ex09 (worth no points; the graded checks are hidden). Run: grade run ex09

They check the types of the three results, that match_widths works with its default cells and keeps
its widths in 1..max_width, and one worked example: total_params must match PyTorch for one model.
"""

from grader.checks import require, student_module

matching = student_module("matching")


def test_total_params_matches_torch_once(matching):
    """total_params("gru", 20, 6, 9) equals sum(p.numel()) of Embedding(20, 6) → GRU(6, 9) → Linear(9, 20)
    total_params("gru", 20, 6, 9) 等于 Embedding(20, 6) → GRU(6, 9) → Linear(9, 20) 的 sum(p.numel())"""
    from torch import nn

    model = nn.ModuleList([nn.Embedding(20, 6), nn.GRU(6, 9), nn.Linear(9, 20)])
    expected = sum(p.numel() for p in model.parameters())
    got = matching.total_params("gru", 20, 6, 9)
    require(type(got) is int and got == expected, f"total_params('gru', 20, 6, 9) returned {got!r}; PyTorch counts {expected}",
            f"total_params('gru', 20, 6, 9) 返回了 {got!r}；PyTorch 统计为 {expected}")


def test_match_widths_default_cells(matching):
    """match_widths(50_000, 30, 8) returns an int width in 1..4096 for each of "rnn", "gru", "lstm\"
    match_widths(50_000, 30, 8) 为 "rnn"、"gru"、"lstm" 各返回 1..4096 内的 int 宽度"""
    got = matching.match_widths(50_000, 30, 8)
    require(isinstance(got, dict) and set(got) == {"gru", "lstm", "rnn"},
            f"match_widths must return a dict keyed by 'rnn', 'gru', 'lstm'; got {got!r}"[:200],
            f"match_widths 必须返回以 'rnn'、'gru'、'lstm' 为键的 dict；实际为 {got!r}"[:200])
    for cell, width in got.items():
        require(isinstance(width, int) and not isinstance(width, bool) and 1 <= width <= 4096,
                f"match_widths(...)[{cell!r}] = {width!r}; expected an int in 1..4096",
                f"match_widths(...)[{cell!r}] = {width!r}；应为 1..4096 内的 int")


def test_macs_per_step_returns_int(matching):
    """macs_per_step returns a positive int for every cell
    macs_per_step 对每种单元返回正的 int"""
    for cell in ("rnn", "gru", "lstm"):
        got = matching.macs_per_step(cell, 30, 8, 16)
        require(isinstance(got, int) and not isinstance(got, bool) and got > 0,
                f"macs_per_step({cell!r}, 30, 8, 16) returned {got!r}; expected a positive int",
                f"macs_per_step({cell!r}, 30, 8, 16) 返回了 {got!r}；应为正的 int")
