"""Hidden checks for ex06: parity with nn.LSTMCell and nn.GRUCell (10 points).

Every check builds the torch cell here, in the grading process, from the same float64 weights that
are injected into the student process (course/ex06/given.py), with d_x != d_h, a batch of three distinct
rows and random non-zero states. The LSTM mapping is run through ex05's *reference* lstm_step, so a
wrong ex05 never costs points here. Gradients to the cell parameters are taken by the chain rule
across the student's two functions: the vector-Jacobian product of the step (or of the reference
lstm_step) is sent back as the cotangent of the mapping. Wrong results are recomputed under the
known mistakes so the feedback names the mistake without printing expected values. Wrong values are charged by
the value checks alone: then the gradient checks compare with the known mistake's gradients, or (a mistake not
known) ask that gradients reach every input and parameter and agree with finite differences of the student's own
functions (float64 results), and the written-out check asks only that
torch_gru_step computes a step without library cells.
"""

import importlib.util
import itertools

import pytest
import torch

from grader.checks import Fail, Outcome, StudentError, agrees_with_finite_differences, check, course_part, expect_tensor, inject, parse_source, student_module

parity = student_module("parity")
policy = course_part("ex05", "policy.py", near=__file__)  # ex05's "compute the gates yourself", applied here too

B = 3
CONFIGS = ((5, 4), (2, 6))  # (d_x, d_h): d_x != d_h, so a transposed block cannot fit
LSTM_KEYS = ("W_i", "W_f", "W_o", "W_c", "b_i", "b_f", "b_o", "b_c")
PARAMS = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
# answer key item 6: values rtol 1e-8 / atol 1e-10, gradients rtol 1e-7 / atol 1e-9, in float64.
RTOL, ATOL = 1e-8, 1e-10
GRAD_RTOL, GRAD_ATOL = 1e-7, 1e-9


@pytest.fixture
def gated_reference(exercise):
    """ex05's reference lstm_step, imported in the grading process (never the student's ex05)."""
    path = exercise.root / "solutions" / "ex05_gated_steps" / "gated.py"
    spec = importlib.util.spec_from_file_location("_ex06_gated_reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cell_weights(kind: str, d_x: int, d_h: int, device, seed: int) -> dict:
    blocks = 4 if kind == "lstm" else 3
    g = torch.Generator().manual_seed(seed)
    shapes = {"weight_ih": (blocks * d_h, d_x), "weight_hh": (blocks * d_h, d_h), "bias_ih": (blocks * d_h,), "bias_hh": (blocks * d_h,)}
    return {k: (0.5 * torch.randn(*s, generator=g, dtype=torch.float64)).to(device) for k, s in shapes.items()}


def torch_cell(kind: str, weights: dict) -> torch.nn.Module:
    """The library cell holding `weights`, built here (the same recipe as course/ex06/given.py)."""
    rows, d_x = weights["weight_ih"].shape
    blocks = 4 if kind == "lstm" else 3
    cls = torch.nn.LSTMCell if kind == "lstm" else torch.nn.GRUCell
    cell = cls(d_x, rows // blocks, dtype=torch.float64, device=weights["weight_ih"].device)
    with torch.no_grad():
        for name, value in weights.items():
            getattr(cell, name).copy_(value)
    return cell


def states(d_x: int, d_h: int, device, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    r = lambda *s: torch.randn(*s, generator=g, dtype=torch.float64).to(device)  # noqa: E731
    return {"x": r(B, d_x), "h": r(B, d_h), "c": r(B, d_h)}


def close(a, b, rtol=RTOL, atol=ATOL) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.allclose(a, b, rtol=rtol, atol=atol)


FLOAT32 = (
    "float32 precision: the result agrees only to about float32 rounding; somewhere a tensor is cast to "
    "float32 (.float(), torch.tensor(...) or torch.zeros(...) without dtype) – keep the cell's float64",
    "float32 精度：结果只在 float32 舍入误差范围内一致；某处把张量转成了 float32（.float()、未指定 dtype 的 "
    "torch.tensor(...) 或 torch.zeros(...)）——请保持单元的 float64",
)


def float32_fail(fn: str, what: str) -> Fail:
    return Fail(
        f"{fn}: {what} is float32, expected torch.float64. Likely mistake: {FLOAT32[0]}",
        f"{fn}：{what} 是 float32，应为 torch.float64。可能的错误：{FLOAT32[1]}",
        diagnosis=FLOAT32,
    )


# -- LSTM ------------------------------------------------------------------------------------------


def lstm_mapping(weights: dict, *, order=("i", "f", "c", "o"), bias="both", columns="xh") -> dict:
    """A mapping of torch's LSTM parameters onto ex05's keys; the defaults are PyTorch's layout."""
    parts = [weights["weight_ih"], weights["weight_hh"]]
    weight = torch.cat(parts if columns == "xh" else parts[::-1], dim=1)
    b = {"both": weights["bias_ih"] + weights["bias_hh"], "ih": weights["bias_ih"], "hh": weights["bias_hh"]}[bias]
    return {f"W_{g}": w for g, w in zip(order, weight.chunk(4, dim=0))} | {f"b_{g}": v for g, v in zip(order, b.chunk(4))}


ORDER_IFOG = (
    "gate order i, f, o, g: the candidate's block (ex05's W_c, b_c) and the output gate's are taken from each other's places",
    "门顺序 i, f, o, g：候选 g（即 ex05 的 W_c、b_c）与输出门的分块互相取错了位置",
)
ORDER_OTHER = ("gate order: the blocks are taken in another order than PyTorch stacks them", "门顺序：分块顺序与 PyTorch 的堆叠顺序不同")
BIAS_HH = ("bias_hh dropped: the mapping leaves the cell's second bias vector out", "漏了 bias_hh：映射中没有用到单元的第二组偏置")
BIAS_IH = ("bias_ih dropped: the mapping leaves the cell's first bias vector out", "漏了 bias_ih：映射中没有用到单元的第一组偏置")
HX = (
    "[h, x] order: the columns of the W's are lined up as [h, x], not as the u that ex05's lstm_step multiplies them by",
    "[h, x] 顺序：W 的列按 [h, x] 排列，与 ex05 的 lstm_step 与之相乘的 u 不一致",
)


LSTM_OPTIONS = {
    "W": [dict(order=o, columns=c) for o in itertools.permutations("ifco") for c in ("xh", "hx")],
    "b": [dict(order=o, bias=b) for o in itertools.permutations("ifco") for b in ("both", "ih", "hh")],
}


def part_option(m: dict, weights: dict, part: str) -> dict | None:
    """The mapping option (gate order, bias, column order) that gives exactly the student's W's (part "W") or b's."""
    keys = [k for k in LSTM_KEYS if k.startswith(part)]
    return next((option for option in LSTM_OPTIONS[part] if all(close(m[k], lstm_mapping(weights, **option)[k], rtol=1e-12, atol=1e-14) for k in keys)), None)


def mostly_mapped(m: dict, weights: dict) -> bool:
    """Whether at least half of the W's and b's a mapping gives are the right ones (in float32 or float64), or the
    cell's own entries rearranged (`rearranged`: blocks taken in another way, interleaved rows): work of the exercise,
    whose wrong rest the value check charges once. Less (every tensor made up) is judged against nothing of its own: a
    made-up mapping's gradients reach every parameter and agree with its own finite differences."""
    correct = lstm_mapping(weights)
    right = {k for k in LSTM_KEYS if close(m[k], correct[k], rtol=1e-6, atol=1e-7) or close(m[k], correct[k].float().double(), rtol=1e-6, atol=1e-7)}
    own = {k for part in "Wb" if rearranged(m, weights, part) for k in LSTM_KEYS if k.startswith(part)}
    return 2 * len(right | own) >= len(LSTM_KEYS)


def rearranged(m: dict, weights: dict, part: str) -> bool:
    """Whether the mapping's W's (part "W") or b's hold, all together, exactly the entries of the cell's [weight_ih |
    weight_hh] (for the b's: of bias_ih + bias_hh, or of one of them), each once, in any places (to float32 rounding)."""
    got = torch.cat([m[k].reshape(-1).to(torch.float64) for k in LSTM_KEYS if k.startswith(part)]).sort().values
    if part == "W":
        sources = [torch.cat([weights["weight_ih"].reshape(-1), weights["weight_hh"].reshape(-1)])]
    else:
        sources = [weights["bias_ih"] + weights["bias_hh"], weights["bias_ih"], weights["bias_hh"]]
    return any(got.shape == source.shape and torch.allclose(got, source.sort().values, rtol=1e-6, atol=1e-7) for source in sources)


def lstm_diagnosis(m: dict, weights: dict) -> list[tuple[str, str]]:
    """Name what the W's and the b's of a wrong mapping have in common with known mistakes."""
    found = []
    for part in "Wb":
        option = part_option(m, weights, part)
        if option is not None:
            order = option["order"]
            if order != ("i", "f", "c", "o"):
                found.append(ORDER_IFOG if order == ("i", "f", "o", "c") else ORDER_OTHER)
            found += [BIAS_HH] if option.get("bias") == "ih" else [BIAS_IH] if option.get("bias") == "hh" else []
            found += [HX] if option.get("columns") == "hx" else []
    correct = lstm_mapping(weights)
    if not found and all(close(m[k], correct[k].float().double(), rtol=1e-6, atol=1e-7) for k in LSTM_KEYS):
        found.append(FLOAT32)
    return list(dict.fromkeys(found))


# Where a mapping no known mistake explains goes wrong, entry by entry: what its rows or entries are taken from, said
# without the right rows or block.
LSTM_PLACES = {
    "h columns": ("its columns acting on h are wrong, those acting on x right", "作用于 h 的列错了，作用于 x 的列是对的"),
    "x columns": ("its columns acting on x are wrong, those acting on h right", "作用于 x 的列错了，作用于 h 的列是对的"),
    "reordered": ("it holds the right block, its rows (a bias: its entries) in another order", "取对了分块，但其中各行（偏置：各元素）的顺序不对"),
    "another block": ("it holds the block of another gate", "取成了另一个门的分块"),
    "interleaved": (
        "its rows (a bias: its entries) come from several of PyTorch's gate blocks, interleaved: one gate's block is not taken whole",
        "它的各行（偏置：各元素）来自 PyTorch 的多个门分块，相互交错：一个门的分块没有整块地取出",
    ),
    "misaligned": (
        "its columns acting on x and those acting on h come from rows of different gates",
        "作用于 x 的列与作用于 h 的列取自不同门的行",
    ),
    "not rows": (
        "its rows are not rows of the cell's weights (scaled, transposed or computed?)",
        "它的各行不是单元权重中的行（被缩放、转置或另行计算了？）",
    ),
    "one vector": ("it holds one of the cell's two bias vectors alone", "只取了单元两组偏置中的一组"),
    "combined otherwise": (
        "it combines the right blocks of bias_ih and bias_hh, but not as the cell does",
        "组合的是 bias_ih 与 bias_hh 中正确的分块，但组合方式与单元不同",
    ),
    "not biases": ("its entries are not the cell's biases for this gate", "它的元素不是单元中这个门的偏置"),
}


def sources(value: torch.Tensor, rows: torch.Tensor) -> list[int] | None:
    """For each row of `value` (each entry, for vectors) the index of the row of `rows` it equals; None unless every
    one is found."""
    a, b = (value.unsqueeze(-1), rows.unsqueeze(-1)) if value.dim() == 1 else (value, rows)
    equal = ((a[:, None, :] - b[None, :, :]).abs() <= 1e-14 + 1e-12 * b[None, :, :].abs()).all(dim=-1)
    found = equal.any(dim=1)
    return equal.int().argmax(dim=1).tolist() if bool(found.all()) else None


def blocks_place(found: list[int] | None, block: int, d_h: int) -> str | None:
    """What rows (or entries) taken from `found` places of the cell's stacked blocks are: the right block reordered,
    another block, or several blocks interleaved (None where they are not all found)."""
    if found is None:
        return None
    blocks = {i // d_h for i in found}
    return "reordered" if blocks == {block} else "another block" if len(blocks) == 1 else "interleaved"


def entry_place(key: str, value: torch.Tensor, weights: dict) -> str:
    """Where one wrong entry of the mapping (W_i … b_c) goes wrong (a key of LSTM_PLACES)."""
    d_h, d_x = weights["weight_ih"].shape[0] // 4, weights["weight_ih"].shape[1]
    block = ("i", "f", "c", "o").index(key[2])
    rows = slice(block * d_h, (block + 1) * d_h)
    if key.startswith("W"):
        stacked = torch.cat([weights["weight_ih"], weights["weight_hh"]], dim=1)
        x_right, h_right = (close(value[:, cols], stacked[rows, cols], rtol=1e-12, atol=1e-14) for cols in (slice(0, d_x), slice(d_x, None)))
        if x_right != h_right:
            return "h columns" if x_right else "x columns"
        place = blocks_place(sources(value, stacked), block, d_h)
        if place:
            return place
        apart = sources(value[:, :d_x], weights["weight_ih"]), sources(value[:, d_x:], weights["weight_hh"])
        return "misaligned" if None not in apart else "not rows"
    bias_ih, bias_hh = weights["bias_ih"], weights["bias_hh"]
    place = blocks_place(sources(value, bias_ih + bias_hh), block, d_h)
    if place:
        return place
    if sources(value, bias_ih) is not None or sources(value, bias_hh) is not None:
        return "one vector"
    basis = torch.stack([bias_ih[rows], bias_hh[rows]], dim=1)
    fit = torch.linalg.lstsq(basis, value.unsqueeze(1)).solution
    return "combined otherwise" if close(basis @ fit, value.unsqueeze(1), rtol=1e-9, atol=1e-12) else "not biases"


def lstm_located(m: dict, weights: dict, wrong: list[str]) -> tuple[str, str]:
    """The feedback's sentence on where each wrong entry of a mapping no known mistake explains goes wrong."""
    places: dict[str, list[str]] = {}
    for k in wrong:
        places.setdefault(entry_place(k, m[k], weights), []).append(k)
    en = "; ".join(f"{', '.join(keys)}: {LSTM_PLACES[place][0]}" for place, keys in places.items())
    zh = "；".join(f"{'、'.join(keys)}：{LSTM_PLACES[place][1]}" for place, keys in places.items())
    return f" Where: {en}.", f"出错之处：{zh}。"


def likely(found: list[tuple[str, str]]) -> tuple[str, str]:
    """The feedback's sentence naming these mistakes ("" when none is known)."""
    if not found:
        return "", ""
    return (" Likely mistake: " + "; ".join(en for en, _ in found) + ".", " 可能的错误：" + "；".join(zh for _, zh in found) + "。")


def lstm_mapping_of(value, d_x: int, d_h: int, *, float32: bool = False) -> dict:
    """The student's mapping after checking it is a dict of float64 tensors of ex05's keys and shapes; `float32`
    accepts float32 ones too (for a check that depends on the values, which the value check charges)."""
    fn = "lstm_params_from_torch"
    if not isinstance(value, dict):
        raise Fail(
            f"{fn} must return a dict with keys {', '.join(LSTM_KEYS)}; got {type(value).__name__}",
            f"{fn} 应返回包含键 {', '.join(LSTM_KEYS)} 的 dict；实际为 {type(value).__name__}",
        )
    missing = [k for k in LSTM_KEYS if k not in value]
    if missing:
        raise Fail(
            f"{fn}: the result lacks key(s) {', '.join(missing)} (ex05's lstm_step takes W_i … b_c)",
            f"{fn}：返回值缺少键 {', '.join(missing)}（ex05 的 lstm_step 接收 W_i … b_c）",
        )
    for k in LSTM_KEYS:
        single = isinstance(value[k], torch.Tensor) and value[k].dtype == torch.float32
        if single and not float32:
            raise float32_fail(fn, f"[{k!r}]")
        shape = (d_h, d_x + d_h) if k.startswith("W") else (d_h,)
        expect_tensor(value[k], name=f"{fn}()[{k!r}]", shape=shape, dtype=torch.float32 if single else torch.float64)
    return {k: value[k] for k in LSTM_KEYS}


@check(points=2)
def test_lstm_values(parity, gated_reference, device):
    """lstm_params_from_torch: ex05's lstm_step on the mapping gives nn.LSTMCell's h and c (float64)
    lstm_params_from_torch：ex05 的 lstm_step 用该映射得到 nn.LSTMCell 的 h 与 c（float64）"""
    for n, (d_x, d_h) in enumerate(CONFIGS):
        weights = cell_weights("lstm", d_x, d_h, device, seed=10 + n)
        m = lstm_mapping_of(parity.lstm_params_from_torch(cell=inject("lstm_cell", **weights)), d_x, d_h)
        s = states(d_x, d_h, device, seed=20 + n)
        with torch.no_grad():
            h_ref, c_ref = torch_cell("lstm", weights)(s["x"], (s["h"], s["c"]))
        out = gated_reference.lstm_step(s["x"], s["h"], s["c"], **m)
        if close(out["h"], h_ref) and close(out["c"], c_ref):
            continue
        correct = lstm_mapping(weights)
        right = sum(close(m[k], correct[k], rtol=1e-12, atol=1e-14) for k in LSTM_KEYS)
        wrong = [k for k in LSTM_KEYS if not close(m[k], correct[k], rtol=1e-12, atol=1e-14)]
        found = lstm_diagnosis(m, weights)
        en, zh = likely(found) if found else lstm_located(m, weights, wrong)
        raise Fail(
            f"lstm_params_from_torch: with your mapping, lstm_step's h and c differ from nn.LSTMCell's "
            f"(float64, batch {B}, d_x={d_x}, d_h={d_h}); wrong entries: {', '.join(wrong) or 'none'}.{en}",
            f"lstm_params_from_torch：用你的映射，lstm_step 得到的 h 与 c 与 nn.LSTMCell 不一致"
            f"（float64，批量 {B}，d_x={d_x}，d_h={d_h}）；错误的条目：{', '.join(wrong) or '无'}。{zh}",
            share=right / len(LSTM_KEYS),
            diagnosis=found,
        )


def report(problems: list[str], zh: list[str]) -> None:
    if problems:
        shown = "; ".join(problems[:4]) + (f"; and {len(problems) - 4} more" if len(problems) > 4 else "")
        shown_zh = "；".join(zh[:4]) + (f"；另有 {len(zh) - 4} 处" if len(zh) > 4 else "")
        raise Fail(shown, shown_zh)


def compare_grads(fn: str, got: dict, expected: dict, problems: list, zh: list, *, reach_only: bool = False) -> None:
    """Missing, malformed or wrong gradients, by name. `expected` is autograd through what the student computed
    (the torch cell, or the known mistake the values match). `reach_only`: the values are wrong in a way not known
    (charged by the value check), so only whether a gradient reaches each input and parameter is judged."""
    for name, ref in expected.items():
        g = got.get(name) if isinstance(got, dict) else None
        if g is None and not ref.any():  # the function computed does not use it: no gradient is right
            continue
        if g is None or (reach_only and isinstance(g, torch.Tensor) and g.shape == ref.shape and not g.any() and ref.any()):
            problems.append(f"{fn}: no gradient reaches {name} (a .detach(), .data, .item(), torch.no_grad() or a tensor rebuilt from values cuts the graph)")
            zh.append(f"{fn}：梯度没有传到 {name}（.detach()、.data、.item()、torch.no_grad() 或由数值重建的张量会切断计算图）")
        elif not isinstance(g, torch.Tensor) or g.shape != ref.shape or not torch.isfinite(g).all():
            problems.append(f"{fn}: the gradient w.r.t. {name} is malformed or not finite")
            zh.append(f"{fn}：关于 {name} 的梯度格式错误或不是有限值")
        elif reach_only:
            continue
        elif ((g == 0) & (ref != 0)).any():
            problems.append(
                f"{fn}: part of the gradient w.r.t. {name} is missing, exactly zero where autograd through the torch cell is not (a .detach() on one slice?)"
            )
            zh.append(f"{fn}：关于 {name} 的梯度缺了一部分，在经过 torch 单元的自动求导不为零处恰为零（对某个切片用了 .detach()？）")
        elif not torch.allclose(g.to(ref.dtype), ref, rtol=GRAD_RTOL, atol=GRAD_ATOL):
            problems.append(f"{fn}: the gradient w.r.t. {name} differs from autograd through the torch cell (rtol={GRAD_RTOL:g}, atol={GRAD_ATOL:g})")
            zh.append(f"{fn}：关于 {name} 的梯度与经过 torch 单元的自动求导结果不一致（rtol={GRAD_RTOL:g}，atol={GRAD_ATOL:g}）")


def own_gradients(fn: str, project, theta: dict, got: dict, problems: list, zh: list, *, seed: int) -> None:
    """Values wrong for no known reason (float64 ones): the gradients judged against the student's own functions,
    by finite differences of `project` (the loss of their outputs) along a few random directions of `theta`."""
    if not agrees_with_finite_differences(project, theta, got, seed=seed):
        problems.append(
            f"{fn}: the gradients differ from finite differences of your own functions' outputs: part of "
            "the graph is cut (a .detach() on one slice, .data, or a tensor rebuilt from values?)"
        )
        zh.append(f"{fn}：梯度与对你自己函数输出的有限差分不一致：计算图有一部分被切断（对某个切片用了 .detach()、.data，或由数值重建的张量？）")


def torch_grads(kind: str, weights: dict, s: dict, cotangent: dict) -> tuple[torch.Tensor, dict]:
    """The cell's output and autograd of sum(output * cotangent) w.r.t. inputs, states and parameters."""
    cell = torch_cell(kind, weights)
    leaves = {k: v.clone().requires_grad_(True) for k, v in s.items() if kind == "lstm" or k != "c"}
    if kind == "lstm":
        h, c = cell(leaves["x"], (leaves["h"], leaves["c"]))
        loss = (h * cotangent["h"]).sum() + (c * cotangent["c"]).sum()
        out = (h.detach(), c.detach())
    else:
        h = cell(leaves["x"], leaves["h"])
        loss = (h * cotangent["h"]).sum()
        out = h.detach()
    return out, named_grads(loss, leaves, dict(cell.named_parameters()))


def named_grads(loss, leaves: dict, weights: dict) -> dict:
    """Autograd of `loss` w.r.t. the states ("x", "h0", "c0") and the cell parameters ("cell.weight_ih", ...);
    zero for one the loss does not use (a mistake that drops bias_hh)."""
    tensors = [*leaves.values(), *weights.values()]
    grads = torch.autograd.grad(loss, tensors, allow_unused=True)
    names = [f"{k}0" if k in ("h", "c") else k for k in leaves] + [f"cell.{k}" for k in weights]
    return {n: torch.zeros_like(t) if g is None else g for n, g, t in zip(names, grads, tensors)}


def known_lstm_grads(weights: dict, s: dict, cot: dict, options: dict, gated_reference) -> dict:
    """Autograd through the known mistaken mapping `options` (for W and for b) and ex05's reference lstm_step."""
    w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
    leaves = {k: v.clone().requires_grad_(True) for k, v in s.items()}
    m = {k: v for part, option in options.items() for k, v in lstm_mapping(w, **option).items() if k.startswith(part)}
    out = gated_reference.lstm_step(**leaves, **m)
    return named_grads((out["h"] * cot["h"]).sum() + (out["c"] * cot["c"]).sum(), leaves, w)


@check(points=2)
def test_lstm_gradients(parity, gated_reference, device):
    """Gradients w.r.t. x, h0, c0 and every LSTMCell parameter through your mapping equal autograd through the cell
    经你的映射对 x、h0、c0 和 LSTMCell 每个参数的梯度与经该单元的 autograd 一致"""
    d_x, d_h = CONFIGS[0]
    weights = cell_weights("lstm", d_x, d_h, device, seed=30)
    m = lstm_mapping_of(parity.lstm_params_from_torch(cell=inject("lstm_cell", **weights)), d_x, d_h, float32=True)
    s = states(d_x, d_h, device, seed=31)
    g = torch.Generator().manual_seed(32)
    cot = {k: torch.randn(B, d_h, generator=g, dtype=torch.float64).to(device) for k in ("h", "c")}
    (h_ref, c_ref), expected = torch_grads("lstm", weights, s, cot)

    leaves = {k: v.detach().to(torch.float64).clone().requires_grad_(True) for k, v in (s | m).items()}
    out = gated_reference.lstm_step(**leaves)
    loss = (out["h"] * cot["h"]).sum() + (out["c"] * cot["c"]).sum()
    grads = dict(zip(leaves, torch.autograd.grad(loss, list(leaves.values()))))
    known = True
    if not (close(out["h"].detach(), h_ref) and close(out["c"].detach(), c_ref)):
        options = {part: part_option(m, weights, part) for part in "Wb"}
        known = None not in options.values()
        if known:
            expected = known_lstm_grads(weights, s, cot, options, gated_reference)

    _, mapped = parity.lstm_params_from_torch.with_grad({k: grads[k] for k in LSTM_KEYS}, cell=inject("lstm_cell", **weights))
    got = {"x": grads["x"], "h0": grads["h"], "c0": grads["c"]}
    got |= {f"cell.{k}": v for k, v in (mapped.get("cell") or {}).items()}
    problems, zh = [], []
    if not known and None in options.values() and not mostly_mapped(m, weights):
        raise Fail(
            "lstm_params_from_torch: the gradients count once at least half the mapped tensors are right, or the W's or "
            "the b's are the cell's own entries in other places, or a known mistake explains them (see the check on its values)",
            "lstm_params_from_torch：至少一半映射出的张量正确、或 W 或 b 是单元自身的元素换了位置、或已知错误能解释它们之后，梯度才计分（见数值检查）",
        )
    compare_grads("lstm_params_from_torch", got, expected, problems, zh, reach_only=not known)
    single = any(v.dtype == torch.float32 for v in m.values())  # float32 precision: the value check's to charge
    if not known and not single and FLOAT32 not in lstm_diagnosis(m, weights):

        def project(theta: dict) -> float:
            cell = inject("lstm_cell", **{k: theta[f"cell.{k}"] for k in PARAMS})
            mapped = lstm_mapping_of(parity.lstm_params_from_torch(cell=cell), d_x, d_h, float32=True)
            out = gated_reference.lstm_step(**s, **{k: v.to(torch.float64) for k, v in mapped.items()})
            return float((out["h"] * cot["h"]).sum() + (out["c"] * cot["c"]).sum())

        own_gradients("lstm_params_from_torch", project, {f"cell.{k}": weights[k] for k in PARAMS}, got, problems, zh, seed=33)
    report(problems, zh)
    if not known:
        raise judged_on_own_terms("lstm_params_from_torch", finite_differences=not single and FLOAT32 not in lstm_diagnosis(m, weights))


def judged_on_own_terms(fn: str, *, finite_differences: bool) -> Fail:
    """The note of a gradient check that judged values wrong for no known mistake against the student's own functions
    (a mistake the value check charges): nothing is lost."""
    fd_en = " and agree with finite differences of your own functions' outputs" if finite_differences else ""
    fd_zh = "，并与对你自己函数输出的有限差分一致" if finite_differences else ""
    return Fail(
        f"{fn}: the values are wrong in a way no known mistake explains, which the check on the values charges; the "
        f"gradients were judged against your own functions instead: they reach every input and parameter{fd_en}. No points "
        "are lost here",
        f"{fn}：数值有误，且不是已知错误所致，该错误由数值检查扣分；梯度改为按你自己的函数评判：它们传到了每个输入和参数{fd_zh}。此处不扣分",
        share=1.0,
    )


# -- GRU -------------------------------------------------------------------------------------------


def gru_variant(weights: dict, x, h, *, order="rzn", reset="after", convention="torch", bias="both", untransposed="", dtype=torch.float64):
    """nn.GRUCell's step (the defaults) or one computed under known mistakes; `untransposed`: the gates whose square
    recurrent block multiplies h as stored (h @ U, no shape error)."""
    w = {k: v.to(dtype) for k, v in weights.items()}
    x, h = x.to(dtype), h.to(dtype)
    W = dict(zip(order, w["weight_ih"].chunk(3)))
    U = {g: u.T if g in untransposed else u for g, u in zip(order, w["weight_hh"].chunk(3))}
    b_i = dict(zip(order, w["bias_ih"].chunk(3)))
    b_h = dict(zip(order, (w["bias_hh"] if bias == "both" else torch.zeros_like(w["bias_hh"])).chunk(3)))
    if bias == "no_hn":
        b_h = dict(zip(order, w["bias_hh"].chunk(3))) | {"n": torch.zeros_like(b_h["n"])}
    r = torch.sigmoid(x @ W["r"].T + b_i["r"] + h @ U["r"].T + b_h["r"])
    z = torch.sigmoid(x @ W["z"].T + b_i["z"] + h @ U["z"].T + b_h["z"])
    recurrent = {"after": r * (h @ U["n"].T + b_h["n"]), "before": (r * h) @ U["n"].T + b_h["n"], "outside": r * (h @ U["n"].T) + b_h["n"]}[reset]
    n = torch.tanh(x @ W["n"].T + b_i["n"] + recurrent)
    new = (1 - z) * n + z * h if convention == "torch" else z * n + (1 - z) * h
    return new.to(torch.float64)


GRU_NAMES = {
    ("order", "zrn"): (
        "r and z swapped: the reset gate's and the update gate's blocks are taken from each other's places",
        "r 与 z 对调：重置门与更新门的分块互相取错了位置",
    ),
    ("reset", "before"): (
        "reset gate applied before the recurrent matmul (ex05's (r ⊙ h) U_hᵀ), which is not where nn.GRUCell applies it: renaming ex05's gru_step cannot work",
        "重置门放在了循环矩阵乘法之前（ex05 的 (r ⊙ h) U_hᵀ），而 nn.GRUCell 并不在这里作用重置门：只改 ex05 gru_step 的变量名行不通",
    ),
    ("reset", "outside"): (
        "b_hn outside r: the candidate's recurrent bias is added outside the reset gate's product",
        "b_hn 放在了 r 之外：候选状态的循环偏置加在了重置门乘积的外面",
    ),
    ("convention", "swapped"): (
        "swapped GRU convention: h' weighs the old state and the candidate n the other way round from nn.GRUCell",
        "GRU 约定颠倒：h' 给旧状态与候选 n 加权的方式与 nn.GRUCell 正好相反",
    ),
    ("bias", "ih"): BIAS_HH,
    ("bias", "no_hn"): ("b_hn dropped: the candidate's recurrent bias, part of bias_hh, is missing", "漏了 b_hn：缺少候选状态的循环偏置（bias_hh 的一部分）"),
}
GATE_NAMES = {"r": ("the reset gate", "重置门"), "z": ("the update gate", "更新门"), "n": ("the candidate", "候选状态")}
UNTRANSPOSED = ("", "r", "z", "n", "rz", "rn", "zn", "rzn")


def untransposed_name(gates: str) -> tuple[str, str]:
    """The statement's "W instead of Wᵀ" for square recurrent blocks, naming the gates, not the fix."""
    names = [GATE_NAMES[g][0] for g in gates]
    en = " and ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    zh = "、".join(GATE_NAMES[g][1] for g in gates)
    many = len(gates) > 1
    return (
        f"W instead of Wᵀ: U used untransposed – the recurrent block{'s' if many else ''} of {en} "
        f"multipl{'y' if many else 'ies'} h as stored, and a square block gives no shape error",
        f"用了 W 而不是 Wᵀ：U 没有转置——{zh}的循环分块按存储的样子与 h 相乘，方阵不会报形状错误",
    )


GRU_NAMES |= {("untransposed", gates): untransposed_name(gates) for gates in UNTRANSPOSED if gates}
GRU_OPTIONS = {
    "order": ("rzn", "zrn"),
    "reset": ("after", "before", "outside"),
    "convention": ("torch", "swapped"),
    "bias": ("both", "ih", "no_hn"),
    "untransposed": UNTRANSPOSED,
}


def gru_mistake(out, weights: dict, s: dict) -> dict | None:
    """The known mistakes (as gru_variant options) whose step gives exactly the student's output, if any."""
    for combo in itertools.product(*GRU_OPTIONS.values()):
        chosen = dict(zip(GRU_OPTIONS, combo))
        if any((k, v) in GRU_NAMES for k, v in chosen.items()) and close(out, gru_variant(weights, s["x"], s["h"], **chosen)):
            return chosen
    return None


def gru_diagnosis(out, weights: dict, s: dict) -> list[tuple[str, str]]:
    chosen = gru_mistake(out, weights, s)
    if chosen is not None:
        return [GRU_NAMES[(k, v)] for k, v in chosen.items() if (k, v) in GRU_NAMES]
    if torch.allclose(out, gru_variant(weights, s["x"], s["h"], dtype=torch.float32), rtol=1e-5, atol=1e-6):
        return [FLOAT32]
    return []


def gru_params_of(value) -> dict:
    """The student's GRU parameters, after checking they can carry gradients back (a dict, no lists)."""
    fn = "gru_params_from_torch"

    def lists(v) -> bool:
        return isinstance(v, list) or (isinstance(v, dict) and any(lists(u) for u in v.values()))

    if not isinstance(value, dict) or lists(value):
        raise Fail(
            f"{fn} must return a dict of tensors (keys of your choice, no lists or tuples); "
            f"got {type(value).__name__}" + (" holding a list" if isinstance(value, dict) else ""),
            f"{fn} 应返回由张量组成的 dict（键名自定，不能用 list 或 tuple）；实际为 {type(value).__name__}"
            + ("，其中含有 list" if isinstance(value, dict) else ""),
        )
    return value


def gru_step_of(parity, weights, s, d_h, *, float32: bool = False) -> torch.Tensor:
    params = gru_params_of(parity.gru_params_from_torch(cell=inject("gru_cell", **weights)))
    return gru_output(parity.torch_gru_step(x=s["x"], h=s["h"], params=params), d_h, float32=float32)


def gru_output(value, d_h: int, *, float32: bool = False) -> torch.Tensor:
    """The step's (B, d_h) float64 output; `float32` accepts a float32 one too, as float64 (for a check that depends
    on the values, which the value check charges)."""
    single = isinstance(value, torch.Tensor) and value.dtype == torch.float32
    if single and not float32:
        raise float32_fail("torch_gru_step", "h'")
    dtype = torch.float32 if single else torch.float64
    return expect_tensor(value, name="torch_gru_step(...)", shape=(B, d_h), dtype=dtype).to(torch.float64)


@check(points=3)
def test_gru_values(parity, device):
    """torch_gru_step(x, h, gru_params_from_torch(cell)) equals nn.GRUCell (float64, batch 3, d_x ≠ d_h)
    torch_gru_step(x, h, gru_params_from_torch(cell)) 等于 nn.GRUCell（float64，批量 3，d_x ≠ d_h）"""
    for n, (d_x, d_h) in enumerate(CONFIGS):
        weights = cell_weights("gru", d_x, d_h, device, seed=40 + n)
        s = states(d_x, d_h, device, seed=50 + n)
        out = gru_step_of(parity, weights, s, d_h)
        with torch.no_grad():
            expected = torch_cell("gru", weights)(s["x"], s["h"])
        if not close(out, expected):
            found = gru_diagnosis(out, weights, s)
            en, zh = likely(found) if found else gru_located(parity, weights, s, d_h)
            raise Fail(
                f"torch_gru_step with gru_params_from_torch's parameters differs from nn.GRUCell (float64, batch {B}, d_x={d_x}, d_h={d_h}).{en}",
                f"torch_gru_step 使用 gru_params_from_torch 的参数时与 nn.GRUCell 的结果不一致（float64，批量 {B}，d_x={d_x}，d_h={d_h}）。{zh}",
                share=n / len(CONFIGS),
                diagnosis=found,
            )


# Where a step no known mistake explains first goes wrong: the cell's parameters set one block at a time (gate by gate,
# each gate's biases before its weights), the rest zero, until the step first differs from nn.GRUCell's.
GRU_BLOCK = {"r": 0, "z": 1, "n": 2}  # PyTorch's stacking, to set one gate's rows
GRU_STEPS = [(gate, param) for gate in "znr" for param in ("bias_ih", "bias_hh", "weight_ih", "weight_hh")]
GRU_ROLES = {
    "bias_ih": ("its bias in bias_ih", "它在 bias_ih 中的偏置"),
    "bias_hh": ("its bias in bias_hh", "它在 bias_hh 中的偏置"),
    "weight_ih": ("how x enters it, its rows of weight_ih", "x 如何进入它，即它在 weight_ih 中的行"),
    "weight_hh": ("how h enters it, its rows of weight_hh", "h 如何进入它，即它在 weight_hh 中的行"),
}
GRU_AT_ZERO = {
    True: (
        "with every cell parameter zero, where h' weighs h rightly: look at the candidate's activation",
        "单元参数全为零时就已出错，而此时 h' 对 h 的加权是对的：检查候选状态的激活函数",
    ),
    False: (
        "with every cell parameter zero: look at how h' weighs h and the candidate (the update gate's activation, the update)",
        "单元参数全为零时就已出错：检查 h' 如何给 h 与候选状态加权（更新门的激活函数、更新公式）",
    ),
}


GRU_RESET = (
    " First wrong: the reset gate: with the cell's parameters set one block at a time, the rest zero, the candidate's "
    "part from h goes wrong, and is right where the reset gate is fully open: look at the reset gate's activation and "
    "where it acts.",
    "最先出错之处：重置门：逐块设置单元参数（其余为零）时，候选状态中来自 h 的部分出错，而在重置门完全打开时是对的：检查重置门的激活函数及其作用的位置。",
)


def gru_located(parity, weights: dict, s: dict, d_h: int) -> tuple[str, str]:
    """The feedback's sentence on where a step no known mistake explains first goes wrong ("" where a probe fails): with
    the cell's parameters zero, then set block by block (GRU_STEPS), the first block whose setting makes the step differ
    from nn.GRUCell's."""

    def step(w: dict, state: dict) -> torch.Tensor | None:
        try:
            return gru_step_of(parity, w, state, d_h)
        except (Fail, StudentError):
            return None

    def expected(w: dict, state: dict) -> torch.Tensor:
        with torch.no_grad():
            return torch_cell("gru", w)(state["x"], state["h"])

    w = {k: torch.zeros_like(v) for k, v in weights.items()}
    out = step(w, s)
    if out is None:
        return "", ""
    if not close(out, expected(w, s)):
        moved = s | {"h": 2 * s["h"]}
        other = step(w, moved)
        if other is None:
            return "", ""
        en, zh = GRU_AT_ZERO[close(other - out, expected(w, moved) - expected(w, s))]
        return f" First wrong: already {en}.", f"最先出错之处：{zh}。"
    for gate, param in GRU_STEPS:
        rows = slice(GRU_BLOCK[gate] * d_h, (GRU_BLOCK[gate] + 1) * d_h)
        w = w | {param: w[param].clone()}
        w[param][rows] = weights[param][rows]
        out = step(w, s)
        if out is None:
            return "", ""
        if not close(out, expected(w, s)):
            name, role = GATE_NAMES[gate], GRU_ROLES[param]
            if gate == "n" and param.endswith("hh"):  # the reset gate acts here: right with it fully open?
                opened = w | {"bias_ih": w["bias_ih"].clone()}
                opened["bias_ih"][GRU_BLOCK["r"] * d_h : (GRU_BLOCK["r"] + 1) * d_h] = 40.0  # PyTorch's r rows: σ(40) is 1 in float64
                out = step(opened, s)
                if out is not None and close(out, expected(opened, s)):
                    return GRU_RESET
            return (
                f" First wrong: {name[0]}, {role[0]}: with the cell's parameters set one block at a time, the rest zero, "
                "your step first differs from nn.GRUCell's once this block is set.",
                f"最先出错之处：{name[1]}，{role[1]}：逐块设置单元参数（其余为零）时，设置这一块后你的单步首次与 nn.GRUCell 不一致。",
            )
    return "", ""


def without_none(grads):
    """The gradients that exist, as a cotangent for the mapping (None entries dropped)."""
    if isinstance(grads, dict):
        return {k: v for k, g in grads.items() if (v := without_none(g)) is not None}
    return grads if isinstance(grads, torch.Tensor) else None


@check(points=2)
def test_gru_gradients(parity, device):
    """Gradients w.r.t. x, h0 and every GRUCell parameter through your two functions equal autograd through the cell
    经你的两个函数对 x、h0 和 GRUCell 每个参数的梯度与经该单元的 autograd 一致"""
    d_x, d_h = CONFIGS[0]
    weights = cell_weights("gru", d_x, d_h, device, seed=60)
    s = states(d_x, d_h, device, seed=61)
    g = torch.Generator().manual_seed(62)
    cot = torch.randn(B, d_h, generator=g, dtype=torch.float64).to(device)
    h_ref, expected = torch_grads("gru", weights, s, {"h": cot})

    params = gru_params_of(parity.gru_params_from_torch(cell=inject("gru_cell", **weights)))
    value, step_grads = parity.torch_gru_step.with_grad(cot, x=s["x"], h=s["h"], params=params)
    out = gru_output(value, d_h, float32=True)
    chosen = {}
    if not close(out, h_ref):
        chosen = gru_mistake(out, weights, s)
        if chosen is not None:  # the gradients of the mistaken step the values show
            w = {k: v.clone().requires_grad_(True) for k, v in weights.items()}
            leaves = {k: s[k].clone().requires_grad_(True) for k in ("x", "h")}
            expected = named_grads((gru_variant(w, leaves["x"], leaves["h"], **chosen) * cot).sum(), leaves, w)
    _, mapped = parity.gru_params_from_torch.with_grad(without_none(step_grads.get("params")) or {}, cell=inject("gru_cell", **weights))
    got = {"x": step_grads.get("x"), "h0": step_grads.get("h")}
    got |= {f"cell.{k}": v for k, v in (mapped.get("cell") or {}).items()}
    problems, zh = [], []
    if chosen is None and not gru_arithmetic_right(parity, device):
        raise Fail(GRU_NO_WORK[0].format(what="the gradients count"), GRU_NO_WORK[1].format(what="梯度才计分"))
    compare_grads("torch_gru_step / gru_params_from_torch", got, expected, problems, zh, reach_only=chosen is None)
    if chosen is None and FLOAT32 not in gru_diagnosis(out, weights, s):

        def project(theta: dict) -> float:
            w = {k: theta[f"cell.{k}"] for k in PARAMS}
            return float((gru_step_of(parity, w, {"x": theta["x"], "h": theta["h0"]}, d_h, float32=True) * cot).sum())

        own_gradients(
            "torch_gru_step / gru_params_from_torch",
            project,
            {"x": s["x"], "h0": s["h"]} | {f"cell.{k}": weights[k] for k in PARAMS},
            got,
            problems,
            zh,
            seed=63,
        )
    report(problems, zh)
    if chosen is None:
        raise judged_on_own_terms("torch_gru_step / gru_params_from_torch", finite_differences=FLOAT32 not in gru_diagnosis(out, weights, s))


GRU_NO_WORK = (
    "torch_gru_step: {what} once its step, with the cell's weights zero (gates and candidate fixed by the biases), "
    "interpolates between h and the candidate as a GRU does, or a known mistake explains its values (see the check on its values)",
    "torch_gru_step：在单元权重为零（门与候选由偏置固定）时，它的单步像 GRU 那样在 h 与候选之间插值、或已知错误能解释它的数值之后，{what}（见数值检查）",
)


def gru_arithmetic_right(parity, device) -> bool:
    """Whether torch_gru_step, through the student's own mapping, interpolates as a GRU does: with the cell's weights
    zero (the gates fixed by biases alike in every block, so which gate gets which bias, or rows of which block, does
    not show; the candidate free of h), a
    change of h moves the step by z times it, whatever the candidate's activation. Work of the exercise, for the checks
    that judge a wrong step against itself; a step made up of anything (tanh(x.sum() + h), say) does not."""
    d_x, d_h = CONFIGS[0]
    full = lambda *values: torch.tensor([v for v in values for _ in range(d_h)], dtype=torch.float64, device=device)  # noqa: E731
    weights = {
        "weight_ih": torch.zeros(3 * d_h, d_x, dtype=torch.float64, device=device),
        "weight_hh": torch.zeros(3 * d_h, d_h, dtype=torch.float64, device=device),
        "bias_ih": full(0.3, 0.3, 0.3),  # PyTorch's r, z, n: alike, so that rows taken from other blocks do not show
        "bias_hh": full(0.2, 0.2, 0.2),
    }
    s, t = states(d_x, d_h, device, seed=52), states(d_x, d_h, device, seed=53)
    try:
        one, other = (gru_step_of(parity, weights, state, d_h, float32=True) for state in (s, s | {"h": t["h"]}))
    except (Fail, StudentError):
        return False
    z = torch.sigmoid(torch.tensor(0.5, dtype=torch.float64))
    return close(other - one, z * (t["h"] - s["h"]), rtol=1e-5, atol=1e-6)


def gru_explained(parity, device) -> bool:
    """Whether the step's values (at the gradient check's cell and states) are right, or a known mistake's."""
    d_x, d_h = CONFIGS[0]
    weights, s = cell_weights("gru", d_x, d_h, device, seed=60), states(d_x, d_h, device, seed=61)
    try:
        out = gru_step_of(parity, weights, s, d_h, float32=True)
    except (Fail, StudentError):
        return False
    with torch.no_grad():
        h_ref = torch_cell("gru", weights)(s["x"], s["h"])
    return close(out, h_ref) or gru_mistake(out, weights, s) is not None


def computes_a_step(parity, device) -> bool:
    """Whether torch_gru_step computes a step from x, h and the cell: a finite (B, d_h) output that changes with x,
    with h and with the cell's weights (right or not: that is the value check's business)."""
    d_x, d_h = CONFIGS[0]
    weights, other = (cell_weights("gru", d_x, d_h, device, seed=seed) for seed in (40, 41))
    s, t = (states(d_x, d_h, device, seed=seed) for seed in (50, 51))
    try:
        outs = [
            gru_step_of(parity, w, state, d_h, float32=True)
            for w, state in ((weights, s), (other, s), (weights, s | {"x": t["x"]}), (weights, s | {"h": t["h"]}))
        ]
    except (Fail, StudentError):
        return False
    return torch.isfinite(outs[0]).all().item() and not any(torch.equal(outs[0], out) for out in outs[1:])


@check(points=1)
def test_gru_written_out(parity, student_source, device):
    """torch_gru_step writes the GRU equations out (no nn.GRUCell, torch.gru_cell or torch._VF)
    torch_gru_step 手写 GRU 方程（不用 nn.GRUCell、torch.gru_cell 或 torch._VF）"""
    tree = parse_source(student_source, "parity.py")
    used = policy.library_cells(tree) | policy.indirect_access(tree)
    if used:
        en, zh = policy.where(used)
        raise Fail(
            f"parity.py uses library recurrent cells, torch's private names or reaches code indirectly ({en}); "
            "torch_gru_step must write nn.GRUCell's equations out",
            f"parity.py 使用了库中的循环单元、torch 的私有名称或间接访问代码（{zh}）；torch_gru_step 必须自己写出 nn.GRUCell 的公式",
            outcome=Outcome.REFUSED,
        )
    if not computes_a_step(parity, device):  # the point is for code that computes, written without library cells
        raise Fail(
            "the written-out point counts once torch_gru_step computes a step from x, h and the cell's parameters (see the check on its values)",
            "torch_gru_step 能由 x、h 和单元参数算出一步后，手写公式这一分才计分（见数值检查）",
        )
    if not gru_explained(parity, device) and not gru_arithmetic_right(parity, device):
        raise Fail(GRU_NO_WORK[0].format(what="the written-out point counts"), GRU_NO_WORK[1].format(what="手写公式这一分才计分"))
