"""Hidden checks for ex05: `lstm_step` and `gru_step` against the reference (14 points).

Inputs are float64 with d_x != d_h (a W vs W^T mix-up raises; a square U_* left untransposed is named
from its values), a batch of three distinct rows and random non-zero states. A wrong result is compared
with the known mistakes of the course spec so that the feedback names the mistake without printing
expected values. Every check calls one function, so a mistake in (or a hang of) one function costs only
its own checks; the checks that depend on the values judge the step the function computes (`computed`: the reference, a
named mistake or two, or for values wrong for no known reason the student's own function against itself), and the
given-gates checks charge only an output the values check finds right (`values_charged`): one mistake, charged once.
"""

import functools
import itertools
import math

import torch

from grader.checks import (
    Fail,
    Outcome,
    StudentError,
    Text,
    agrees_with_finite_differences,
    assert_close,
    check,
    course_part,
    expect_tensor,
    expect_value_errors,
    once,
    parse_source,
    reference_module,
    student_module,
)

gated = student_module("gated")
reference = reference_module("gated")
policy = course_part("ex05", "policy.py", near=__file__)  # what "compute the gates yourself" refuses (ex06's checks apply it too)

B, D_X, D_H = 3, 5, 4
LSTM_KEYS = ("i", "f", "o", "candidate", "c", "h")
GRU_KEYS = ("z", "r", "candidate", "h")
# float64 comparisons against the reference.
RTOL, ATOL = 1e-8, 1e-10


def lstm_inputs(device, dtype=torch.float64, *, scale=1.0, seed=5) -> dict:
    g = torch.Generator().manual_seed(seed)

    def r(*shape, s=1.0):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * s).to(device, dtype)

    inputs = {"x": r(B, D_X), "h": r(B, D_H), "c": r(B, D_H)}
    for gate in "ifoc":
        inputs[f"W_{gate}"] = r(D_H, D_X + D_H, s=0.5 * scale)
        inputs[f"b_{gate}"] = r(D_H, s=0.5 * scale)
    return inputs


def gru_inputs(device, dtype=torch.float64, *, scale=1.0, seed=7) -> dict:
    g = torch.Generator().manual_seed(seed)

    def r(*shape, s=1.0):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * s).to(device, dtype)

    inputs = {"x": r(B, D_X), "h": r(B, D_H)}
    for gate in "zrh":
        inputs[f"W_{gate}"] = r(D_H, D_X, s=0.5 * scale)
        inputs[f"U_{gate}"] = r(D_H, D_H, s=0.5 * scale)
        inputs[f"b_{gate}"] = r(D_H, s=0.5 * scale)
    return inputs


def result_dict(value, keys, *, shape, dtype, fn) -> dict:
    """The student's result after checking it is a dict of tensors with these keys, shape and dtype."""
    if not isinstance(value, dict):
        raise Fail(
            f"{fn} must return a dict with keys {', '.join(keys)}; got {type(value).__name__}",
            f"{fn} 应返回包含键 {', '.join(keys)} 的 dict；实际为 {type(value).__name__}",
        )
    missing = [k for k in keys if k not in value]
    if missing:
        raise Fail(f"{fn}: the result lacks key(s) {', '.join(missing)}", f"{fn}：返回值缺少键 {', '.join(missing)}")
    return {k: expect_tensor(value[k], name=f"{fn}()[{k!r}]", shape=shape, dtype=dtype) for k in keys}


def wrong_keys(out: dict, expected: dict, keys, *, rtol: float = RTOL, atol: float = ATOL) -> list[str]:
    return [k for k in keys if not torch.allclose(out[k], expected[k], rtol=rtol, atol=atol)]


# -- known mistakes: each recomputes the step the wrong way, in the grading process -----------------


def _lstm(x, h, c, W_i, W_f, W_o, W_c, b_i, b_f, b_o, b_c, *, order="xh", cand=torch.tanh, squash_c=True, coupled=False):
    u = torch.cat([x, h] if order == "xh" else [h, x], dim=-1)
    i, f, o = (torch.sigmoid(u @ W.T + b) for W, b in ((W_i, b_i), (W_f, b_f), (W_o, b_o)))
    candidate = cand(u @ W_c.T + b_c)
    c_new = f * c + ((1 - f) if coupled else i) * candidate
    h_new = o * (torch.tanh(c_new) if squash_c else c_new)
    return {"i": i, "f": f, "o": o, "candidate": candidate, "c": c_new, "h": h_new}


def _gru(x, h, W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h, *, swapped=False, reset_after=False, cand=torch.tanh, untransposed=()):
    U_z, U_r, U_h = (U if name in untransposed else U.T for name, U in (("U_z", U_z), ("U_r", U_r), ("U_h", U_h)))
    z = torch.sigmoid(x @ W_z.T + h @ U_z + b_z)
    r = torch.sigmoid(x @ W_r.T + h @ U_r + b_r)
    recurrent = r * (h @ U_h) if reset_after else (r * h) @ U_h
    candidate = cand(x @ W_h.T + recurrent + b_h)
    h_new = (1 - z) * h + z * candidate if swapped else z * h + (1 - z) * candidate
    return {"z": z, "r": r, "candidate": candidate, "h": h_new}


# Each known mistake: (English name, Chinese name) -> how to recompute the step that way.
LSTM_MISTAKES = {
    (
        "sigmoid on the candidate: squashed like a gate, the candidate cell state lies in (0, 1) and can never lower c",
        "候选细胞状态用了 sigmoid：像门一样被压缩后，候选值落在 (0, 1) 内，永远不能让 c 减小",
    ): dict(cand=torch.sigmoid),
    (
        "missing tanh on c in h: h reads the cell state unsquashed, so it grows with c without bound",
        "h 中漏了 tanh：h 直接读取未经压缩的细胞状态，会随 c 无界增长",
    ): dict(squash_c=False),
    (
        "[h, x] order: u puts h first, the textbook's order; this exercise concatenates in the answer key's order",
        "拼接顺序 [h, x]：u 中 h 在前，这是教材的顺序；本题按参考答案的顺序拼接",
    ): dict(order="hx"),
    (
        "coupled gates: the cell update weighs the candidate by the forget gate's complement, a coupled-gate variant; "
        "this cell writes through its own input gate",
        "门被耦合：细胞状态更新用遗忘门的补数给候选值加权，这是耦合门的变体；本题的单元通过它自己的输入门写入",
    ): dict(coupled=True),
}
GRU_MISTAKES = {
    (
        "swapped GRU convention: h_new weighs the old state and the candidate the textbook's way round, the mirror image of this exercise's convention",
        "GRU 约定颠倒：h_new 按教材的方式给旧状态与候选值加权，与本题的约定正好相反",
    ): dict(swapped=True),
    (
        "reset gate applied after the matmul: r scales the recurrent product, as nn.GRUCell does (ex06), not where this exercise's candidate applies it",
        "重置门放在了矩阵乘法之后：r 缩放的是循环矩阵乘积（nn.GRUCell 的做法，见 ex06），不是本题候选状态中作用它的位置",
    ): dict(reset_after=True),
    (
        "sigmoid on the candidate: squashed like a gate, the candidate hidden state lies in (0, 1) and can never be negative",
        "候选隐状态用了 sigmoid：像门一样被压缩后，候选值落在 (0, 1) 内，永远不会是负数",
    ): dict(cand=torch.sigmoid),
} | {  # U_* is square (d_h, d_h): used untransposed it gives no shape error, only wrong values
    (
        f"W instead of Wᵀ: {', '.join(names)} used untransposed; rows are samples, and a square U gives no shape error, so only the values show it",
        f"用了 W 而不是 Wᵀ：{', '.join(names)} 没有转置；每行是一个样本，方阵 U 不会报形状错误，只有数值能暴露它",
    ): dict(untransposed=names)
    for n in (1, 2, 3)
    for names in itertools.combinations(("U_z", "U_r", "U_h"), n)
}


def one_or_two(mistakes: dict) -> dict:
    """The known mistakes of one function, alone and two at once (two that change different things): the names of
    each as a tuple -> the options of the step that makes them all."""
    pairs = itertools.combinations(mistakes.items(), 2)
    return {(name,): options for name, options in mistakes.items()} | {
        (a, b): options_a | options_b for (a, options_a), (b, options_b) in pairs if not set(options_a) & set(options_b)
    }


NAMED = {"lstm_step": one_or_two(LSTM_MISTAKES), "gru_step": one_or_two(GRU_MISTAKES)}
W_TRANSPOSE = (
    "W instead of Wᵀ: rows are samples and W_* is (d_h, ·), so W as given does not fit a row of inputs",
    "用了 W 而不是 Wᵀ：每行是一个样本，W_* 的形状为 (d_h, ·)，原样的 W 与一行输入对不上",
)
BATCH_MIXING = (
    "batch mixing. Each row alone is right, but in a batch the rows affect each other (a sum/mean over the batch axis, or broadcasting across rows)",
    "批量之间相互干扰。单独一行时结果正确，但成批计算时各行互相影响（沿批维求和/平均，或跨行广播）",
)

CUT_GRAPH = (
    "a cut graph: gradients do not flow through the whole step (a .detach(), .item(), torch.no_grad() or a new tensor)",
    "计算图被切断：梯度没有流经整个单步（.detach()、.item()、torch.no_grad() 或新建的张量）",
)


def diagnose(out: dict, inputs: dict, wrong: list[str], recompute, mistakes: dict, student_fn) -> tuple:
    """The (en, zh) names of the known mistake (or two) whose results match the student's wrong outputs; () if none."""
    for names, options in mistakes.items():
        candidate = recompute(**inputs, **options)
        if all(torch.allclose(out[k], candidate[k], rtol=RTOL, atol=ATOL) for k in wrong):
            return names
    return (BATCH_MIXING,) if rows_alone_right(student_fn, inputs, recompute(**inputs), wrong) else ()


def row(inputs: dict, j: int) -> dict:
    """The inputs of row j alone (a batch of one), the parameters unchanged."""
    return {k: v[j : j + 1] if k in ("x", "h", "c") else v for k, v in inputs.items()}


def rows_alone_right(student_fn, inputs: dict, expected: dict, keys) -> bool:
    """Whether the function, called on each row alone, gives that row of `expected` for every one of `keys`."""
    try:
        rows_alone = [student_fn(**row(inputs, j)) for j in range(B)]
    except StudentError:  # a row alone fails too: not batch mixing
        return False
    return all(
        isinstance(out, dict)
        and k in out
        and isinstance(out[k], torch.Tensor)
        and out[k].shape == (1, D_H)
        and out[k].dtype == torch.float64
        and torch.allclose(out[k], expected[k][j : j + 1], rtol=RTOL, atol=ATOL)
        for j, out in enumerate(rows_alone)
        for k in keys
    )


# Where a wrong value no known mistake explains first goes wrong, said without the right value or the equation. A step's
# outputs in the order they are computed: stages of outputs that depend on the inputs alone, then outputs that depend on
# earlier ones; each output by name (English, Chinese), and for a later one what it is computed from.
NAMES = {
    "lstm_step": {
        "i": ("the input gate i", "输入门 i"),
        "f": ("the forget gate f", "遗忘门 f"),
        "o": ("the output gate o", "输出门 o"),
        "candidate": ("the candidate", "候选值"),
        "c": ("c", "c"),
        "h": ("h", "h"),
    },
    "gru_step": {"z": ("the update gate z", "更新门 z"), "r": ("the reset gate r", "重置门 r"), "candidate": ("the candidate", "候选值"), "h": ("h", "h")},
}
STAGES = {"lstm_step": (("i", "f", "o", "candidate"), ("c",), ("h",)), "gru_step": (("z", "r"), ("candidate",), ("h",))}
SOURCES = {
    ("lstm_step", "c"): ("your f, i, candidate and c_prev", "你的 f、i、候选值与 c_prev"),
    ("lstm_step", "h"): ("your o and c", "你的 o 与 c"),
    ("gru_step", "candidate"): ("x, your r and h_prev", "x、你的 r 与 h_prev"),
    ("gru_step", "h"): ("your z, candidate and h_prev", "你的 z、候选值与 h_prev"),
}


def from_own(fn: str, key: str, out: dict, inputs: dict) -> torch.Tensor | None:
    """Output `key` as the statement computes it from the student's own earlier outputs `out` (None for an output of
    the first stage, computed from the inputs alone)."""
    if fn == "lstm_step":
        later = {"c": lambda: out["f"] * inputs["c"] + out["i"] * out["candidate"], "h": lambda: out["o"] * torch.tanh(out["c"])}
    else:
        later = {
            "candidate": lambda: torch.tanh(inputs["x"] @ inputs["W_h"].T + (out["r"] * inputs["h"]) @ inputs["U_h"].T + inputs["b_h"]),
            "h": lambda: out["z"] * inputs["h"] + (1 - out["z"]) * out["candidate"],
        }
    return later[key]() if key in later else None


PROBED = {"lstm_step": STAGES["lstm_step"][0], "gru_step": ("z", "r", "candidate")}  # the outputs x and h enter
# Where a wrong output of the first stages first goes wrong: the inputs zeroed in turn (all, then the states, then x).
PROBES = (
    (
        ("x", "h", "c"),
        "wrong already with x and the states zero, where only its bias and activation act",
        "在 x 与状态都为零、只有偏置与激活函数起作用时就已出错",
    ),
    (
        ("h", "c"),
        "right from its bias alone, wrong once x is non-zero with the states zero: look at how x enters its pre-activation",
        "只有偏置时正确，x 不为零（状态为零）时出错：检查 x 如何进入它的预激活",
    ),
    (
        ("x",),
        "right with the states zero, wrong once h is non-zero with x zero: look at how h enters its pre-activation",
        "状态为零时正确，h 不为零（x 为零）时出错：检查 h 如何进入它的预激活",
    ),
)
BOTH = ("right whenever x or the states are zero, wrong only with both non-zero", "x 或状态为零时都正确，只有两者都不为零时才出错")


def where_wrong(student_fn, reference_fn, inputs: dict, key: str, fn: str) -> tuple[str, str] | None:
    """Which inputs make the student's `key` (one of PROBED) go wrong: the first probe of PROBES where it differs from
    what the statement computes there (from the student's own earlier outputs, for a later one); None where a probe
    cannot be judged."""
    for zeroed, en, zh in PROBES:
        probe = inputs | {k: torch.zeros_like(inputs[k]) for k in zeroed if k in inputs}
        try:
            out = result_dict(student_fn(**probe), STAGES[fn][0] + STAGES[fn][1], shape=(B, D_H), dtype=torch.float64, fn=fn)
        except (Fail, StudentError):
            return None
        own = from_own(fn, key, out, probe)
        if wrong_keys(out, {key: reference_fn(**probe)[key] if own is None else own}, [key]):
            return en, zh
    return BOTH


def first_wrong(student_fn, reference_fn, inputs: dict, out: dict, wrong: list[str], fn: str) -> tuple[str, str]:
    """The feedback's sentence on where the step first goes wrong (for values no known mistake explains): the outputs
    of the first stage that has one wrong of its own, where each goes wrong, what agrees beside them, and which later
    outputs are wrong only through them."""
    names = NAMES[fn]
    own = [k for k in wrong if (value := from_own(fn, k, out, inputs)) is None or wrong_keys({k: out[k]}, {k: value}, [k])]
    stage = next((stage for stage in STAGES[fn] if set(stage) & set(own)), None)
    if stage is None:
        return "", ""
    en, zh = [], []
    for k in (k for k in stage if k in own):
        source = SOURCES.get((fn, k))
        where = where_wrong(student_fn, reference_fn, inputs, k, fn) if k in PROBED[fn] else None
        where = where or (source and (f"it does not follow from {source[0]}", f"它不能由{source[1]}得出"))
        en.append(names[k][0] + (f" ({where[0]})" if where else ""))
        zh.append(names[k][1] + (f"（{where[1]}）" if where else ""))
    right = [k for k in stage if k not in wrong]
    later = [k for s in STAGES[fn][STAGES[fn].index(stage) + 1 :] for k in s if k in wrong]
    inherited, beyond = [k for k in later if k not in own], [k for k in later if k in own]
    sentence_en = f" First wrong: {'; '.join(en)}."
    sentence_zh = f"最先出错的是：{'；'.join(zh)}。"
    if right:
        listed_en = " and ".join(filter(None, [", ".join(names[k][0] for k in right[:-1]), names[right[-1]][0]]))
        sentence_en += f" {listed_en[0].upper()}{listed_en[1:]} agree{'s' if len(right) == 1 else ''}."
        sentence_zh += f"{'、'.join(names[k][1] for k in right)}一致。"
    if inherited:
        sentence_en += f" {', '.join(inherited)} follow{'s' if len(inherited) == 1 else ''} rightly from your values: wrong only through them."
        sentence_zh += f"{'、'.join(inherited)}由你的数值正确地得出：只是因此出错。"
    for k in beyond:
        sentence_en += f" {k} is wrong beyond that: it does not follow from {SOURCES[(fn, k)][0]} either."
        sentence_zh += f"{k}另有错误：它也不能由{SOURCES[(fn, k)][1]}得出。"
    return sentence_en, sentence_zh


def values_check(student_fn, reference_fn, inputs, keys, recompute, mistakes, fn) -> None:
    try:
        value = student_fn(**inputs)
    except StudentError as e:
        if "cannot be multiplied" in e.en:
            raise e.with_hint(Text(f" Likely mistake: {W_TRANSPOSE[0]}.", f" 可能的错误：{W_TRANSPOSE[1]}。"), diagnosis=W_TRANSPOSE) from None
        raise
    out = result_dict(value, keys, shape=(B, D_H), dtype=torch.float64, fn=fn)
    wrong = wrong_keys(out, reference_fn(**inputs), keys)
    if wrong:
        names = diagnose(out, inputs, wrong, recompute, mistakes, student_fn)
        en, zh = (
            (
                f" Likely mistake{'s' if len(names) > 1 else ''}: {'; and '.join(en for en, _ in names)}.",
                f"可能的错误：{'；以及'.join(zh for _, zh in names)}。",
            )
            if names
            else first_wrong(student_fn, reference_fn, inputs, out, wrong, fn)
        )
        raise Fail(
            f"{fn}: wrong values for {', '.join(wrong)} (float64, batch {B}, d_x={D_X}, d_h={D_H}).{en}",
            f"{fn}：{', '.join(wrong)} 的数值错误（float64，批量 {B}，d_x={D_X}，d_h={D_H}）。{zh}",
            share=(len(keys) - len(wrong)) / len(keys),
            diagnosis=list(names),
        )


@check(points=3)
def test_lstm_values(gated, reference, device):
    """lstm_step: gates, candidate, c and h match the reference (float64, batch 3, d_x ≠ d_h)
    lstm_step：各门、候选值、c 与 h 与参考实现一致（float64，批量 3，d_x ≠ d_h）"""
    values_check(gated.lstm_step, reference.lstm_step, lstm_inputs(device), LSTM_KEYS, _lstm, NAMED["lstm_step"], "lstm_step")


@check(points=3)
def test_gru_values(gated, reference, device):
    """gru_step: gates, candidate and h match the reference (float64, batch 3, d_x ≠ d_h)
    gru_step：各门、候选值与 h 与参考实现一致（float64，批量 3，d_x ≠ d_h）"""
    values_check(gated.gru_step, reference.gru_step, gru_inputs(device), GRU_KEYS, _gru, NAMED["gru_step"], "gru_step")


def _logit(p: float) -> float:
    return math.log(p / (1 - p))


def given_lstm(device) -> dict:
    """ex01's numbers as lstm_step's inputs: zero weights, gates fixed by their biases, a batch of one, d_x = d_h = 1."""
    zero = lambda *s: torch.zeros(*s, dtype=torch.float64, device=device)  # noqa: E731
    full = lambda v: torch.full((1,), v, dtype=torch.float64, device=device)  # noqa: E731
    inputs = {"x": zero(1, 1), "h": zero(1, 1), "c": full(2.0).reshape(1, 1)}
    inputs |= {f"W_{g}": zero(1, 2) for g in "ifoc"}
    return inputs | {"b_i": full(_logit(0.25)), "b_f": full(_logit(0.8)), "b_o": full(0.0), "b_c": full(math.atanh(-0.4))}


def given_gru(device) -> dict:
    """ex03's numbers as gru_step's inputs: zero weights, gates fixed by their biases, a batch of one, d_x = d_h = 1."""
    zero = lambda *s: torch.zeros(*s, dtype=torch.float64, device=device)  # noqa: E731
    full = lambda v: torch.full((1,), v, dtype=torch.float64, device=device)  # noqa: E731
    inputs = {"x": zero(1, 1), "h": full(2.0).reshape(1, 1)}
    inputs |= {f"W_{g}": zero(1, 1) for g in "zrh"} | {f"U_{g}": zero(1, 1) for g in "zrh"}
    return inputs | {"b_z": full(_logit(0.75)), "b_r": full(0.0), "b_h": full(math.atanh(-0.4))}


# fn: (its inputs with the gates given, those inputs in words: English, Chinese)
GIVEN_GATES = {
    "lstm_step": (
        given_lstm,
        (
            "With the gates fixed by their biases (f=0.8, i=0.25, candidate=−0.4, o=0.5) and c_prev=2, ex01's numbers",
            "当偏置把门值固定为 f=0.8、i=0.25、candidate=−0.4、o=0.5，且 c_prev=2（ex01 的数）",
        ),
    ),
    "gru_step": (
        given_gru,
        (
            "With the gates fixed by their biases (z=0.75, r=0.5, candidate=−0.4) and h_prev=2, ex03's numbers",
            "当偏置把门值固定为 z=0.75、r=0.5、candidate=−0.4，且 h_prev=2（ex03 的数）",
        ),
    ),
}


def given_gates_check(gated, reference, device, fn: str) -> None:
    """The step with its gates fixed by their biases, a batch of one and d_x = d_h = 1. It judges what the values check
    cannot see: an output wrong here that is wrong in the values check too is that check's to charge (once), so
    only an output right there and wrong here – a step that breaks at these sizes – costs this check."""
    make, keys, _ = STEPS[fn]
    given, (en, zh) = GIVEN_GATES[fn]
    inputs = given(device)
    out = result_dict(getattr(gated, fn)(**inputs), keys, shape=(1, 1), dtype=torch.float64, fn=fn)
    wrong = wrong_keys(out, getattr(reference, fn)(**inputs), keys)
    if not wrong:
        return
    shown = ", ".join(f"{k}={out[k].item():.6g}" for k in wrong)
    charged = values_charged(gated, reference, device, fn)
    if charged is None:
        raise Fail(
            f"{en}, your {fn} gives {shown}: wrong; this check counts once the values check finds at least half the outputs right or a named mistake",
            f"{zh}时，你的 {fn} 得到 {shown}：有误；数值检查中至少一半的输出正确或表现为已指出的错误后，本项才计分",
        )
    if set(wrong) <= charged:
        raise Fail(
            f"{en}, your {fn} gives {shown}: wrong, as in the values check, which has charged this mistake; no points are lost here",
            f"{zh}时，你的 {fn} 得到 {shown}：有误，与数值检查中的错误相同，该检查已经扣分；此处不扣分",
            share=1.0,
        )
    own = [k for k in wrong if k not in charged]
    raise Fail(
        f"{en} (a batch of one, d_x = d_h = 1), your {fn} gives {shown}; "
        f"{', '.join(own)} {'is' if len(own) == 1 else 'are'} right in the values check, so the step breaks at "
        "these sizes (a squeeze, a fixed axis, a size read from the wrong tensor, a path of its own for one sample?)",
        f"{zh}、批量为 1、d_x = d_h = 1 时，你的 {fn} 得到 {shown}；{'、'.join(own)} 在数值"
        "检查中是对的，所以该单步在这些尺寸下出错（squeeze、写死的维度、从错误的张量读取尺寸，或单个样本另走一条路径？）",
    )


@check(points=1)
def test_lstm_given_gates(gated, reference, device):
    """lstm_step with gates fixed by their biases reproduces ex01's arithmetic (batch 1, d_x = d_h = 1; a mistake the values check shows is charged there)
    用偏置固定门值时，lstm_step 复现 ex01 的算术（批量 1，d_x = d_h = 1；数值检查已显示的错误只在该检查扣分）"""
    given_gates_check(gated, reference, device, "lstm_step")


@check(points=1)
def test_gru_given_gates(gated, reference, device):
    """gru_step with gates fixed by their biases reproduces ex03's arithmetic (batch 1, d_x = d_h = 1; a mistake the values check shows is charged there)
    用偏置固定门值时，gru_step 复现 ex03 的算术（批量 1，d_x = d_h = 1；数值检查已显示的错误只在该检查扣分）"""
    given_gates_check(gated, reference, device, "gru_step")


STEPS = {"lstm_step": (lstm_inputs, LSTM_KEYS, _lstm), "gru_step": (gru_inputs, GRU_KEYS, _gru)}


def right_keys(out: dict, expected: dict, keys) -> list[str]:
    """The outputs the student's function gets right on these float64 inputs: the work that exists."""
    wrong = wrong_keys(out, expected, keys)
    return [k for k in keys if k not in wrong]


def mostly_right(out: dict, expected: dict, keys) -> bool:
    """Whether at least half the step's outputs are right: work of the exercise, whose wrong rest the values check
    charges once. Less is no step of this exercise – one gate computed and the rest anything at all would otherwise
    earn every check that judges the function against itself (float32, extremes, gradients, the given gates)."""
    return 2 * len(right_keys(out, expected, keys)) >= len(keys)


def computed(gated, reference, device, fn: str):
    """What the student's `fn` computes on the float64 inputs of its values check, and on how many rows at once the
    dependent checks judge it: the reference step, or the step of the known mistake its outputs all match (a
    recompute), on the batch; the reference on one row where only batch mixing is wrong; OWN where the values are wrong
    for no known reason but the function computes its outputs from its inputs; a Fail when it does not.
    The checks that depend on the values judge this step (OWN: the student's own function against itself), so that a
    mistake in the values is charged once, by the values check, and no work earns the dependent checks nothing."""
    make, keys, recompute = STEPS[fn]
    inputs = make(device)
    out = result_dict(getattr(gated, fn)(**inputs), keys, shape=(B, D_H), dtype=torch.float64, fn=fn)
    expected = getattr(reference, fn)(**inputs)
    if not wrong_keys(out, expected, keys):
        return getattr(reference, fn), B
    options = named_mistake(out, inputs, fn)
    if options is not None:
        return functools.partial(recompute, **options), B
    if rows_alone_right(getattr(gated, fn), inputs, expected, keys):  # batch mixing: each row alone is the reference's
        return getattr(reference, fn), 1
    if mostly_right(out, expected, keys) and computes_from_inputs(gated, device, fn, out):
        return OWN, B
    raise Fail(
        f"{fn}: this check counts once at least half its outputs are right, or all of them a named mistake's (see the check on its values)",
        f"{fn}：至少一半的输出正确、或全部表现为已指出的错误之后，本项才计分（见数值检查）",
    )


OWN = None  # computed(): the student's own function, its values wrong for no known reason


def computes_from_inputs(gated, device, fn: str, out: dict) -> bool:
    """Whether `fn` computes its outputs (`out`, on its values check's inputs) from its inputs: finite, and changed
    by other x, by other states and by other weights (right or not: that is the values check's business)."""
    make, keys, _ = STEPS[fn]
    inputs, other = make(device), make(device, seed=99)
    states = ("x", "h", "c") if fn == "lstm_step" else ("x", "h")
    changes = [inputs | {k: other[k]} for k in states] + [{k: inputs[k] if k in states else v for k, v in other.items()}]
    try:
        outs = [result_dict(getattr(gated, fn)(**changed), keys, shape=(B, D_H), dtype=torch.float64, fn=fn) for changed in changes]
    except (Fail, StudentError):
        return False
    return all(torch.isfinite(out[k]).all() for k in keys) and all(any(not torch.equal(out[k], o[k]) for k in keys) for o in outs)


def named_mistake(out: dict, inputs: dict, fn: str) -> dict | None:
    """The options of the known mistake whose step gives every one of the student's outputs `out` on `inputs`, if any."""
    _, keys, recompute = STEPS[fn]
    for options in NAMED[fn].values():
        if not wrong_keys(out, recompute(**inputs, **options), keys):
            return options
    return None


def values_charged(gated, reference, device, fn: str) -> set[str] | None:
    """The outputs the values check charges as wrong, where it judged work: at least half the outputs right, or all of
    them a named mistake's; None where less is right and no named mistake fits (no work), or the function fails there."""
    make, keys, _ = STEPS[fn]
    inputs = make(device)
    try:
        out = result_dict(getattr(gated, fn)(**inputs), keys, shape=(B, D_H), dtype=torch.float64, fn=fn)
    except Fail:  # a StudentError too: nothing to judge
        return None
    wrong = wrong_keys(out, getattr(reference, fn)(**inputs), keys)
    return set(wrong) if 2 * len(wrong) <= len(keys) or named_mistake(out, inputs, fn) is not None else None


def rows(inputs: dict, n: int) -> dict:
    """The inputs of the first n rows (all of them, or one where only batch mixing is wrong)."""
    return inputs if n == B else row(inputs, 0)


def listed(problems: list[Text], limit: int) -> Text:
    """The first `limit` problems, and how many more there are."""
    more = len(problems) - limit
    return Text.join("; ", problems[:limit] + ([Text(f"and {more} more", f"另有 {more} 处")] if more > 0 else []))


def float32_check(gated, reference, device, fn: str) -> None:
    make, keys, _ = STEPS[fn]
    step, n = computed(gated, reference, device, fn)
    inputs32 = {k: v.float() for k, v in rows(make(device), n).items()}
    out32 = result_dict(getattr(gated, fn)(**inputs32), keys, shape=(n, D_H), dtype=torch.float32, fn=f"{fn} (float32)")
    inputs64 = {k: v.double() for k, v in inputs32.items()}
    if step is OWN:  # its own float64 outputs on the same numbers
        expected = result_dict(getattr(gated, fn)(**inputs64), keys, shape=(n, D_H), dtype=torch.float64, fn=fn)
    else:
        expected = step(**inputs64)
    problems = []
    for k in keys:
        try:
            assert_close(out32[k], expected[k].float(), name=f"{fn}()[{k!r}] in float32", rtol=1e-4, atol=1e-5)
        except Fail as failure:
            problems.append(failure.message)
    if problems:
        raise Fail(Text.join("\n", problems[:4]), share=(len(keys) - len(problems)) / len(keys))


@check(points=0.5)
def test_lstm_float32(gated, reference, device):
    """lstm_step: float32 inputs give float32 outputs with the float64 values (partial: per output)
    lstm_step：float32 输入得到 float32 输出，数值与 float64 一致（按输出给部分分）"""
    float32_check(gated, reference, device, "lstm_step")


@check(points=0.5)
def test_gru_float32(gated, reference, device):
    """gru_step: float32 inputs give float32 outputs with the float64 values (partial: per output)
    gru_step：float32 输入得到 float32 输出，数值与 float64 一致（按输出给部分分）"""
    float32_check(gated, reference, device, "gru_step")


def gradients_check(gated, reference, device, fn: str) -> None:
    make, keys, _ = STEPS[fn]
    step, n = computed(gated, reference, device, fn)
    inputs = rows(make(device), n)
    g = torch.Generator().manual_seed(11)
    cotangent = {k: torch.randn(B, D_H, generator=g, dtype=torch.float64)[:n].to(device) for k in keys}
    value, grads = getattr(gated, fn).with_grad(cotangent, **inputs)
    out = result_dict(value, keys, shape=(n, D_H), dtype=torch.float64, fn=fn)
    if step is OWN:
        expected = getattr(reference, fn)(**inputs)
        rounded = not wrong_keys(out, expected, keys, rtol=1e-5, atol=1e-6)  # float32 rounding: below finite differences
        own_gradients_check(getattr(gated, fn), inputs, cotangent, grads, fn, differences=not rounded)
        return
    leaves = {k: v.clone().requires_grad_(True) for k, v in inputs.items()}
    expected = step(**leaves)
    loss = sum((expected[k] * cotangent[k]).sum() for k in keys)
    problems, cut = [], False
    for name, ref in zip(leaves, torch.autograd.grad(loss, list(leaves.values()), allow_unused=True)):
        got = grads.get(name)
        if ref is None:  # the step computed (a named mistake) does not use it
            continue
        if got is None:
            cut = True
            problems.append(
                Text(
                    f"{fn}: no gradient reaches {name} (a .detach(), .item(), torch.no_grad() or a new tensor?)",
                    f"{fn}：梯度没有传到 {name}（.detach()、.item()、torch.no_grad() 或新建的张量？）",
                )
            )
        elif not isinstance(got, torch.Tensor) or got.shape != ref.shape or got.dtype != ref.dtype or not torch.isfinite(got).all():
            problems.append(Text(f"{fn}: the gradient w.r.t. {name} is malformed or not finite", f"{fn}：关于 {name} 的梯度格式错误或不是有限值"))
        elif not torch.allclose(got, ref, rtol=1e-7, atol=1e-9):
            cut = True  # autograd through its own values gave other gradients: part of the graph is missing
            problems.append(
                Text(
                    f"{fn}: the gradient w.r.t. {name} differs from autograd through the step it computes",
                    f"{fn}：关于 {name} 的梯度与经过它所计算的单步的自动求导结果不一致",
                )
            )
    if problems:
        raise Fail(listed(problems, 4), diagnosis=CUT_GRAPH if cut else ())


def own_gradients_check(student_fn, inputs: dict, cotangent: dict, grads: dict, fn: str, *, differences: bool) -> None:
    """The gradients of a step whose values are wrong for no known reason, judged against the step itself: each
    well formed, and (`differences`: unless its values are the reference's rounded through float32, which finite
    differences cannot resolve) together equal to finite differences of its own outputs along a few random directions."""
    _, keys, _ = STEPS[fn]
    for name, got in grads.items():
        if got is not None and (
            not isinstance(got, torch.Tensor) or got.shape != inputs[name].shape or got.dtype != torch.float64 or not torch.isfinite(got).all()
        ):
            raise Fail(f"{fn}: the gradient w.r.t. {name} is malformed or not finite", f"{fn}：关于 {name} 的梯度格式错误或不是有限值")

    def projected(theta) -> float:
        out = result_dict(student_fn(**theta), keys, shape=(len(theta["x"]), D_H), dtype=torch.float64, fn=fn)
        return float(sum((out[k] * cotangent[k]).sum() for k in keys))

    if differences and not agrees_with_finite_differences(projected, inputs, grads, seed=13):
        raise Fail(
            f"{fn}: its gradients differ from finite differences of its own outputs: part of the graph is cut "
            "(a .detach(), .item(), torch.no_grad() or a new tensor?)",
            f"{fn}：它的梯度与对其自身输出的有限差分不一致：计算图有一部分被切断（.detach()、.item()、torch.no_grad() 或新建的张量？）",
            diagnosis=CUT_GRAPH,
        )


@check(points=1)
def test_lstm_gradients(gated, reference, device):
    """lstm_step: gradients equal autograd through the step it computes (values wrong otherwise: finite differences of its own)
    lstm_step：梯度与对它所计算单步的自动求导一致（其他数值错误时：与对其自身输出的有限差分一致）"""
    gradients_check(gated, reference, device, "lstm_step")


@check(points=1)
def test_gru_gradients(gated, reference, device):
    """gru_step: gradients equal autograd through the step it computes (values wrong otherwise: finite differences of its own)
    gru_step：梯度与对它所计算单步的自动求导一致（其他数值错误时：与对其自身输出的有限差分一致）"""
    gradients_check(gated, reference, device, "gru_step")


def extreme_check(gated, reference, device, fn: str) -> None:
    make, keys, _ = STEPS[fn]
    step, n = computed(gated, reference, device, fn)
    inputs = rows(make(device, scale=2e4), n)
    out = result_dict(getattr(gated, fn)(**inputs), keys, shape=(n, D_H), dtype=torch.float64, fn=fn)
    if step is OWN:  # its own step at ordinary sizes says which ranges its activations keep
        ordinary = result_dict(getattr(gated, fn)(**rows(make(device), n)), keys, shape=(n, D_H), dtype=torch.float64, fn=fn)
        bounds = {k: bound for k, bound in activation_bounds(fn, rows(make(device), n)).items() if within(ordinary[k], bound)}
    problems = []
    for k in keys:
        if not torch.isfinite(out[k]).all():
            problems.append(
                Text(
                    f"{fn}()[{k!r}] has NaN or infinity for large pre-activations: a hand-written sigmoid or "
                    "tanh through exp overflows; use torch.sigmoid and torch.tanh",
                    f"{fn}()[{k!r}] 在预激活值很大时出现 NaN 或无穷大：用 exp 手写的 sigmoid 或 tanh 会溢出；请使用 torch.sigmoid 和 torch.tanh",
                )
            )
        elif step is OWN:
            if k in bounds and not within(out[k], bounds[k]):
                problems.append(
                    Text(
                        f"{fn}()[{k!r}] leaves the range its activations allow for large pre-activations",
                        f"{fn}()[{k!r}] 在预激活值很大时超出了其激活函数允许的范围",
                    )
                )
        elif not torch.allclose(out[k], step(**inputs)[k], rtol=1e-6, atol=1e-6):
            problems.append(Text(f"{fn}()[{k!r}] is finite but wrong for large pre-activations", f"{fn}()[{k!r}] 在预激活值很大时是有限值，但数值错误"))
    if problems:
        raise Fail(listed(problems, 3), share=(len(keys) - len(problems)) / len(keys))


def activation_bounds(fn: str, inputs: dict) -> dict:
    """The (low, high) each output's activations allow: gates in [0, 1], the candidate in [−1, 1], LSTM's c within
    |c_prev| + 1 and h in [−1, 1], GRU's h within max(|h_prev|, 1) (a blend of the old state and the candidate)."""
    one = torch.ones_like(inputs["h"])
    unit, gate = (-one, one), (0 * one, one)
    if fn == "lstm_step":
        span = inputs["c"].abs() + 1
        return {"i": gate, "f": gate, "o": gate, "candidate": unit, "c": (-span, span), "h": unit}
    span = torch.maximum(inputs["h"].abs(), one)
    return {"z": gate, "r": gate, "candidate": unit, "h": (-span, span)}


def within(value: torch.Tensor, bound: tuple) -> bool:
    low, high = bound
    return bool(((value >= low - 1e-12) & (value <= high + 1e-12)).all())


@check(points=0.5)
def test_lstm_extreme_preactivations(gated, reference, device):
    """lstm_step: outputs stay finite and right for pre-activations around ±1e4 (use torch.sigmoid/torch.tanh; partial: per output)
    lstm_step：预激活约为 ±1e4 时输出仍有限且正确（使用 torch.sigmoid/torch.tanh；按输出给部分分）"""
    extreme_check(gated, reference, device, "lstm_step")


@check(points=0.5)
def test_gru_extreme_preactivations(gated, reference, device):
    """gru_step: outputs stay finite and right for pre-activations around ±1e4 (use torch.sigmoid/torch.tanh; partial: per output)
    gru_step：预激活约为 ±1e4 时输出仍有限且正确（使用 torch.sigmoid/torch.tanh；按输出给部分分）"""
    extreme_check(gated, reference, device, "gru_step")


def _bad_shapes(device):
    lstm, gru = lstm_inputs(device), gru_inputs(device)
    yield "lstm_step", ("x is 1-D", "x 是一维的"), lstm | {"x": lstm["x"][0]}
    yield "lstm_step", ("h is 3-D", "h 是三维的"), lstm | {"h": lstm["h"][None]}
    yield "lstm_step", ("c.shape != h.shape", "c.shape != h.shape"), lstm | {"c": lstm["c"][:, :2]}
    yield "lstm_step", ("x and h have different batch sizes", "x 与 h 的批量大小不同"), lstm | {"x": lstm["x"][:2]}
    yield "lstm_step", ("W_f does not fit [x, h]", "W_f 与 [x, h] 不匹配"), lstm | {"W_f": lstm["W_f"][:, :D_X]}
    yield "gru_step", ("x is 1-D", "x 是一维的"), gru | {"x": gru["x"][0]}
    yield "gru_step", ("x and h have different batch sizes", "x 与 h 的批量大小不同"), gru | {"h": gru["h"][:2]}
    yield "gru_step", ("U_r is (d_h, d_x) instead of (d_h, d_h)", "U_r 是 (d_h, d_x) 而不是 (d_h, d_h)"), gru | {"U_r": gru["W_r"]}


def value_errors_check(gated, reference, device, fn: str) -> None:
    make, keys, _ = STEPS[fn]
    inputs = make(device)
    out = result_dict(getattr(gated, fn)(**inputs), keys, shape=(B, D_H), dtype=torch.float64, fn=fn)
    if not mostly_right(out, getattr(reference, fn)(**inputs), keys) and named_mistake(out, inputs, fn) is None:
        raise Fail(
            f"{fn}: its ValueError cases count once at least half its outputs are right or it shows a named mistake (see the check on its values)",
            f"{fn}：至少一半的输出正确或表现为已指出的错误后，它的 ValueError 情况才计分（见数值检查）",
        )
    expect_value_errors(
        {
            Text(f"{fn} with {en}", f"{fn}：{zh}"): lambda inputs=inputs: getattr(gated, fn)(**inputs)
            for name, (en, zh), inputs in _bad_shapes(device)
            if name == fn
        }
    )


@check(points=0.5)
def test_lstm_value_errors(gated, reference, device):
    """lstm_step: bad shapes raise ValueError (not a torch RuntimeError, not a silent broadcast; partial: per case)
    lstm_step：形状错误时抛出 ValueError（不是 torch 的 RuntimeError，也不是静默广播；按情形给部分分）"""
    value_errors_check(gated, reference, device, "lstm_step")


@check(points=0.5)
def test_gru_value_errors(gated, reference, device):
    """gru_step: bad shapes raise ValueError (not a torch RuntimeError, not a silent broadcast; partial: per case)
    gru_step：形状错误时抛出 ValueError（不是 torch 的 RuntimeError，也不是静默广播；按情形给部分分）"""
    value_errors_check(gated, reference, device, "gru_step")


# gated.py stands alone: it may import these only (see policy.py beside this file for what it may not reach).
ALLOWED_IMPORTS = {"torch", "math", "typing", "__future__"}


def standing_alone(gated, reference, student_source, device, fn: str) -> None:
    computed(gated, reference, device, fn)  # the point is for working code written without library cells
    once(gated, "gated.py stands alone", lambda: stands_alone(student_source))  # one file, read once for both steps


def stands_alone(student_source) -> None:
    """Fail, refused, where gated.py uses library cells or reaches beyond torch, math and typing."""
    tree = parse_source(student_source, "gated.py")
    used = policy.library_cells(tree)
    if used:
        en, zh = policy.where(used)
        raise Fail(
            f"gated.py uses library recurrent cells or torch's private names ({en}); this exercise asks you to write the gates yourself",
            f"gated.py 使用了库中的循环单元或 torch 的私有名称（{zh}）；本题要求自己实现各个门",
            outcome=Outcome.REFUSED,
        )
    outside = {m: line for m, line in policy.imported_modules(tree).items() if m not in ALLOWED_IMPORTS}
    outside |= policy.indirect_access(tree)
    if outside:
        en, zh = policy.where(outside)
        raise Fail(
            f"gated.py reaches beyond torch, math and typing ({en}); the step functions must stand alone",
            f"gated.py 使用了 torch、math、typing 以外的模块或间接导入（{zh}）；单步函数必须独立实现",
            outcome=Outcome.REFUSED,
        )


@check(points=0.5)
def test_lstm_no_library_cells(gated, reference, student_source, device):
    """lstm_step computes the gates itself: no library cells, no imports beyond torch, math and typing (counts once its outputs change with its inputs)
    lstm_step 自己计算各门：不用库中的单元，除 torch、math 与 typing 外不导入其他模块（输出随输入变化后才计分）"""
    standing_alone(gated, reference, student_source, device, "lstm_step")


@check(points=0.5)
def test_gru_no_library_cells(gated, reference, student_source, device):
    """gru_step computes the gates itself: no library cells, no imports beyond torch, math and typing (counts once its outputs change with its inputs)
    gru_step 自己计算各门：不用库中的单元，除 torch、math 与 typing 外不导入其他模块（输出随输入变化后才计分）"""
    standing_alone(gated, reference, student_source, device, "gru_step")
