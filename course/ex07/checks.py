"""Hidden checks for ex07: gate-bias decay, code and answer sheet (8 points).

state_jacobian_norm always runs the course's own step function (injected as `step`), and the
constant-gate parameters it is given come from the reference, so neither ex05 nor the student's
constant_gate_params is charged twice. With random non-zero weights the expected value is the
reference's autograd measurement, computed here with the same injected step; a closed-form
shortcut (retain ** T) cannot pass. The sheet's numbers (c), (d) and (e) are the student's (`variant`, from
exercises/ex07_gate_bias_decay/variant.toml); `expected` and `mistakes` compute their answers and known mistakes.
"""

import functools
import math

import torch

from grader.checks import (
    Answers,
    Fail,
    Outcome,
    StudentError,
    call,
    check,
    course_part,
    expect_value_errors,
    inject,
    once,
    partial,
    reference_module,
    student_module,
)

decay = student_module("decay")
reference = reference_module("decay")
# The same step functions the student process is given (torch's library cells), run here for expected values.
STEPS = course_part("ex07", "given_hidden.py", near=__file__)

D_X, D_H = 3, 4
RETAINS = (0.1, 0.5, 0.9)
KEYS = {
    "lstm": {**{f"W_{g}": (D_H, D_X + D_H) for g in "ifoc"}, **{f"b_{g}": (D_H,) for g in "ifoc"}},
    "gru": {**{f"W_{g}": (D_H, D_X) for g in "zrh"}, **{f"U_{g}": (D_H, D_H) for g in "zrh"}, **{f"b_{g}": (D_H,) for g in "zrh"}},
}
RETENTION = {"lstm": "b_f", "gru": "b_z"}
GATE = {"lstm": "forget gate f = σ(b_f)", "gru": "update gate z = σ(b_z)"}


def sigma(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def logit(p: float) -> float:
    return math.log(p / (1 - p))


# -- constant_gate_params -------------------------------------------------------------------------


def bias_mistakes(kind: str, retain: float) -> dict:
    """Biases that known mistakes put where logit(retain) belongs."""
    opposite = (
        (
            "(1 − z) convention: the bias makes 1 − z the share kept, as the textbook and lecture 16 write the GRU; "
            "these parameters are for ex05's gru_step and its convention",
            "(1 − z) 约定：这个偏置让 1 − z 成为保留的比例，这是教材与第 16 讲的 GRU 写法；这些参数是给 ex05 的 gru_step 及其约定用的",
        )
        if kind == "gru"
        else (
            "logit sign: with this bias the gate equals 1 − retain, the complement of what it should keep",
            "logit 符号错误：用这个偏置时门值等于 1 − retain，是它应保留比例的补数",
        )
    )
    return {
        retain: (
            "wrong bias: retain itself used as the bias; the gate is σ(bias), so this bias gives σ(retain), not retain",
            "偏置错误：直接把 retain 当作偏置；门值是 σ(偏置)，所以这个偏置给出的是 σ(retain)，而不是 retain",
        ),
        sigma(retain): (
            "wrong bias: σ applied to retain; the bias is its inverse, the logit σ⁻¹(retain)",
            "偏置错误：对 retain 取了 σ；偏置应是其反函数 logit σ⁻¹(retain)",
        ),
        -logit(retain): opposite,
        math.log10(retain / (1 - retain)): ("log10 instead of ln: σ⁻¹ uses the natural logarithm", "用了 log10 而非 ln：σ⁻¹ 使用自然对数"),
    }


def check_constant_params(decay, kind: str, retain: float) -> None:
    fn = f"constant_gate_params({kind!r}, {retain}, d_x={D_X}, d_h={D_H})"
    params = decay.constant_gate_params(kind=kind, retain=retain, d_x=D_X, d_h=D_H)
    shapes = KEYS[kind]
    if not isinstance(params, dict) or set(params) != set(shapes):  # sets: the student's keys may not be sortable
        raise Fail(
            f"{fn} must return a dict with exactly the keys {', '.join(shapes)} (ex05's {kind}_step parameters)",
            f"{fn} 应返回恰好含键 {', '.join(shapes)} 的 dict（ex05 的 {kind}_step 参数）",
        )
    for key, shape in shapes.items():
        value = params[key]
        if not isinstance(value, torch.Tensor) or tuple(value.shape) != shape or value.dtype != torch.float64:
            got = f"{value.dtype} {tuple(value.shape)}" if isinstance(value, torch.Tensor) else type(value).__name__
            raise Fail(f"{fn}[{key!r}] must be a float64 tensor of shape {shape}; got {got}", f"{fn}[{key!r}] 应为形状 {shape} 的 float64 张量；实际为 {got}")
    nonzero_w = [k for k in shapes if k[0] in "WU" and bool(params[k].any())]
    if nonzero_w:
        raise Fail(
            f"{fn}: every W/U must be zero so that the gates are constant; {', '.join(nonzero_w)} is not",
            f"{fn}：所有 W/U 都必须为零，门才是常数；{', '.join(nonzero_w)} 不为零",
        )
    target = RETENTION[kind]
    b = params[target]
    if not torch.allclose(torch.sigmoid(b), torch.full_like(b, retain), rtol=1e-9, atol=0):
        moved = [
            k for k in shapes if k.startswith("b_") and k != target and torch.allclose(params[k], torch.full_like(b, logit(retain)), rtol=1e-9, atol=1e-12)
        ]
        if moved:
            hint = (f"the bias went to {moved[0]}; the retention gate is the {GATE[kind]}", f"偏置放到了 {moved[0]}；保留门是{GATE[kind]}")
        else:
            hint = next(
                ((en, zh) for wrong, (en, zh) in bias_mistakes(kind, retain).items() if torch.allclose(b, torch.full_like(b, wrong), rtol=1e-6, atol=1e-9)),
                (f"σ({target}) must equal retain in every entry", f"σ({target}) 的每个分量都必须等于 retain"),
            )
        raise Fail(
            f"{fn}: the {GATE[kind]} is not {retain}. Likely mistake: {hint[0]}.",
            f"{fn}：{GATE[kind]} 不等于 {retain}。可能的错误：{hint[1]}。",
            diagnosis=hint,
        )
    other = [k for k in shapes if k.startswith("b_") and k != target and bool(params[k].any())]
    if other:
        raise Fail(f"{fn}: every bias but {target} must be zero; {', '.join(other)} is not", f"{fn}：除 {target} 外的偏置都必须为零；{', '.join(other)} 不为零")


@check(points=1)
def test_constant_gate_params(decay):
    """constant_gate_params: zero weights, σ(b_f) (LSTM) or σ(b_z) (GRU) equal to retain, other biases zero
    constant_gate_params：权重为零，σ(b_f)（LSTM）或 σ(b_z)（GRU）等于 retain，其余偏置为零"""

    def both(kind: str) -> None:
        for retain in (0.9, 0.25):
            check_constant_params(decay, kind, retain)

    partial([lambda kind=kind: both(kind) for kind in ("lstm", "gru")])


def bias_follows_retain(decay, kind: str) -> bool:
    """Whether constant_gate_params computes the retention gate's bias from retain: a (d_h,) tensor that differs
    between two retains (right or not: that is the other check's business)."""
    biases = []
    for retain in (0.9, 0.25):
        try:
            params = decay.constant_gate_params(kind=kind, retain=retain, d_x=D_X, d_h=D_H)
        except StudentError:
            return False
        b = params.get(RETENTION[kind]) if isinstance(params, dict) else None
        if not isinstance(b, torch.Tensor) or tuple(b.shape) != (D_H,) or not b.is_floating_point() or not torch.isfinite(b).all():
            return False
        biases.append(b.double())
    return not torch.equal(*biases)


@check(points=1)
def test_value_errors(decay):
    """constant_gate_params raises ValueError unless 0 < retain < 1 and kind is "lstm" or "gru" (counts once it computes)
    除非 0 < retain < 1 且 kind 为 "lstm" 或 "gru"，constant_gate_params 抛出 ValueError（能算出参数后才计分）"""
    if not any(bias_follows_retain(decay, kind) for kind in ("lstm", "gru")):
        raise Fail(
            "constant_gate_params's ValueError cases count once it computes the retention gate's bias from retain (see the check on its parameters)",
            "constant_gate_params 根据 retain 计算保留门的偏置后，它的 ValueError 情况才计分（见参数检查）",
        )
    cases = [("lstm", 0.0), ("gru", 1.0), ("lstm", -0.5), ("gru", 1.5), ("rnn", 0.5)]
    expect_value_errors(
        {
            f"kind={kind!r}, retain={retain}": lambda kind=kind, retain=retain: decay.constant_gate_params(kind=kind, retain=retain, d_x=D_X, d_h=D_H)
            for kind, retain in cases
        }
    )


# -- state_jacobian_norm --------------------------------------------------------------------------


def as_number(value, fn: str) -> float:
    """The student's result as a float (a one-element tensor is accepted too)."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Fail(f"{fn} must return a finite float; got {type(value).__name__}", f"{fn} 应返回有限的 float；实际为 {type(value).__name__}")
    return float(value)


def jacobian(kind: str, params: dict, T: int, *, wrt: str = "s", of: str = "s", device) -> torch.Tensor:
    """∂(of)_T/∂(wrt)_0 through the course's step, for naming mistakes ('s' is c for the LSTM, h for the GRU)."""
    step = getattr(STEPS, f"{kind}_step")(device=device)
    zeros = torch.zeros(1, D_H, dtype=torch.float64, device=device)
    x = torch.zeros(1, D_X, dtype=torch.float64, device=device)

    def run(s0):
        h, c = (zeros, s0) if kind == "lstm" and wrt == "s" else (s0, zeros)
        for _ in range(T):
            out = step(x=x, h=h, c=c, **params) if kind == "lstm" else step(x=x, h=h, **params)
            h, c = out["h"], out.get("c")
        return c if kind == "lstm" and of == "s" else h

    return torch.autograd.functional.jacobian(run, zeros).reshape(D_H, D_H)


OFF_BY_ONE = ("off by one step: the loop runs one step {}", "差了一步：循环{}")


def norm_mistakes(kind: str, params: dict, T: int, device) -> dict:
    """{mistake: (the value it gives, its diagnosis)} for each known mistake of state_jacobian_norm with these parameters."""
    spectral = lambda J: float(torch.linalg.matrix_norm(J, ord=2))  # noqa: E731
    J = jacobian(kind, params, T, device=device)
    mistakes = {
        "frobenius": (float(torch.linalg.matrix_norm(J)), ("Frobenius norm instead of the spectral norm", "用了 Frobenius 范数而非谱范数")),
        "nuclear": (
            float(torch.linalg.matrix_norm(J, ord="nuc")),
            ("sum of the singular values (nuclear norm) instead of the largest one", "用了奇异值之和（核范数）而非最大奇异值"),
        ),
        "entry": (float(J.abs().max()), ("largest entry instead of the spectral norm", "用了最大元素而非谱范数")),
        "sum": (
            float(J.sum(0).norm()),
            (
                "the norm of the gradient of sum(s_T), a vector, instead of the spectral norm of the Jacobian matrix",
                "用了 sum(s_T) 的梯度（一个向量）的范数，而非雅可比矩阵的谱范数",
            ),
        ),
        "fewer": (spectral(jacobian(kind, params, T - 1, device=device)), (OFF_BY_ONE[0].format("too few"), OFF_BY_ONE[1].format("少跑了一步"))),
        "more": (spectral(jacobian(kind, params, T + 1, device=device)), (OFF_BY_ONE[0].format("too many"), OFF_BY_ONE[1].format("多跑了一步"))),
    }
    if kind == "lstm":
        wrt_h = (
            "Jacobian w.r.t. h instead of c: for the LSTM s is the cell state c (h_0 held fixed)",
            "对 h 而非 c 求了雅可比：LSTM 的 s 是细胞状态 c（h_0 固定）",
        )
        mistakes |= {
            "wrt h": (spectral(jacobian(kind, params, T, wrt="h", of="h", device=device)), wrt_h),
            "c wrt h": (spectral(jacobian(kind, params, T, wrt="h", device=device)), wrt_h),
            "of h": (
                spectral(jacobian(kind, params, T, of="h", device=device)),
                ("∂h_T/∂c_0 instead of ∂c_T/∂c_0: for the LSTM s is the cell state c", "求了 ∂h_T/∂c_0 而非 ∂c_T/∂c_0：LSTM 的 s 是细胞状态 c"),
            ),
        }
    return mistakes


def agrees(value: float, expected: float) -> bool:
    return math.isclose(value, expected, rel_tol=1e-6, abs_tol=1e-300)


def norm_call(kind: str, params: dict, T: int):
    """The arguments of one call of state_jacobian_norm, with the course's step injected."""
    return call(kind=kind, step=inject(f"{kind}_step"), params=params, T=T, d_x=D_X)


def as_norm(value, kind: str, T: int) -> float:
    return as_number(value, f"state_jacobian_norm({kind!r}, T={T})")


def returned(decay, kind: str, params: dict, T: int):
    """What state_jacobian_norm returns for these arguments, called alone."""
    sent = norm_call(kind, params, T)
    return decay.state_jacobian_norm(*sent.args, **sent.kwargs)


def student_norm(decay, kind: str, params: dict, T: int) -> float:
    return as_norm(returned(decay, kind, params, T), kind, T)


def constant_cases(kind: str, reference, device) -> list[tuple[dict, int, float]]:
    """(params, T, expected) of the constant-gate check for `kind`: retain 0.1, 0.5, 0.9 over 20 steps (LSTM: and 0.9
    over 7)."""
    cases = [(retain, 20) for retain in RETAINS] + ([(0.9, 7)] if kind == "lstm" else [])
    return [({k: v.to(device) for k, v in reference.constant_gate_params(kind, retain, D_X, D_H).items()}, T, retain**T) for retain, T in cases]


def random_params(kind: str, device, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    return {k: (0.6 * torch.randn(*s, generator=g, dtype=torch.float64) + (1.0 if k == RETENTION[kind] else 0.0)).to(device) for k, s in KEYS[kind].items()}


@functools.cache  # the reference's autograd measurement: once per grading process, not once per submission
def random_case(kind: str, reference, device) -> tuple[dict, int, float]:
    """(params, T, expected) of the random-weight check for `kind`: the reference's autograd measurement over 6 steps."""
    params = random_params(kind, device, seed=70 + ("lstm", "gru").index(kind))
    step = getattr(STEPS, f"{kind}_step")(device=device)
    return params, 6, reference.state_jacobian_norm(kind, step, params, 6, D_X)


def only(diagnoses) -> tuple[str, str] | None:
    """The one diagnosis among `diagnoses`; None when there are none or several (a value two mistakes give alike)."""
    named = set(diagnoses)
    return named.pop() if len(named) == 1 else None


def norm_diagnosis(decay, reference, kind: str, device) -> tuple[tuple[str, str] | None, bool]:
    """The known mistake that explains every value state_jacobian_norm returns for `kind` (constant gates and random
    weights), when exactly one does (at constant gates the Frobenius norm and the gradient of sum(s_T) agree, and
    the random weights tell them apart; at retain 0.5 and d_h = 4 one step too few gives the Frobenius norm too);
    and whether the constant-gate check charges it (a value there is wrong)."""
    candidates, constant_wrong, names = None, False, {}
    cases = [(case, False) for case in constant_cases(kind, reference, device)] + [(random_case(kind, reference, device), True)]
    for (params, T, expected), random in cases:
        try:
            value = student_norm(decay, kind, params, T)
        except StudentError:  # it raised or hung: no further runs (each would cost a time limit)
            break
        except Fail:  # a value that is no number: judged by its own check
            continue
        constant_wrong |= not random and not agrees(value, expected)
        mistakes = norm_mistakes(kind, params, T, device)
        names |= {m: diagnosis for m, (_, diagnosis) in mistakes.items()}
        fits = {m for m, (wrong, _) in mistakes.items() if agrees(value, wrong)}
        candidates = fits if candidates is None else candidates & fits
    return only(names[m] for m in candidates or ()), constant_wrong


def diagnosed(decay, reference, kind: str, device) -> tuple[tuple[str, str] | None, bool]:
    """norm_diagnosis, run once per submission for both checks."""
    return once(decay, f"norm diagnosis {kind}", lambda: norm_diagnosis(decay, reference, kind, device))


def norm_check(decay, reference, kind: str, case: tuple, got, device, *, random: bool) -> None:
    """Judge what state_jacobian_norm returned (`got`) for `case` (params, T, expected)."""
    params, T, expected = case
    fn = f"state_jacobian_norm({kind!r}, T={T})"
    value = as_norm(got, kind, T)
    if agrees(value, expected):
        return
    hint, charged = diagnosed(decay, reference, kind, device)
    if random and hint is not None and charged:
        return  # the measurement through the step is right but for the named mistake the constant gates charge
    if hint is None and random:
        constant = {k: v if k.startswith("b_") else torch.zeros_like(v) for k, v in params.items()}
        if math.isclose(value, student_norm(decay, kind, constant, T), rel_tol=1e-9):
            hint = (
                "the result ignores the weights – a closed-form shortcut such as retain ** T holds only for constant gates",
                "结果与权重无关——retain ** T 之类的闭式捷径只对常数门成立",
            )
    setting = "random non-zero weights" if random else "constant gates"
    setting_zh = "随机非零权重" if random else "常数门"
    raise Fail(
        f"{fn} with {setting} is wrong (rtol 1e-6)." + (f" Likely mistake: {hint[0]}." if hint else ""),
        f"{fn} 在{setting_zh}下的结果错误（rtol 1e-6）。" + (f"可能的错误：{hint[1]}。" if hint else ""),
        diagnosis=hint or (),
    )


def norm_checks(decay, reference, cases: list[tuple[str, tuple]], device, *, random: bool) -> None:
    """norm_check of each (kind, case), a part each, the calls sent in one message. A wrong value's diagnosis calls the
    submission again, so the cases judged after one are called again, one by one: what the loop of single calls did;
    and where a call of the message raised, every case is called alone, so that one that raises (a kind not written
    yet) costs its own part, not the others' (one that hung is not called again: the check fails with its time-out)."""
    try:
        values, batched = decay.state_jacobian_norm.many([norm_call(kind, params, T) for kind, (params, T, _) in cases]), True
    except StudentError as e:
        if e.outcome in (Outcome.TIMED_OUT, Outcome.NOT_RUN):
            raise
        values, batched = [None] * len(cases), False

    def part(kind: str, case: tuple, value) -> None:
        nonlocal batched
        if not batched:
            value = returned(decay, kind, case[0], case[1])
        try:
            norm_check(decay, reference, kind, case, value, device, random=random)
        except Fail:
            batched = False
            raise

    partial([lambda kind=kind, case=case, value=value: part(kind, case, value) for (kind, case), value in zip(cases, values)])


@check(points=1)
def test_constant_gate_norms(decay, reference, device):
    """Constant gates retain = 0.1, 0.5, 0.9: ‖∂s_T/∂s_0‖ measured through the course's step (LSTM and GRU)
    常数门 retain = 0.1、0.5、0.9：经课程给定的单步函数测得的 ‖∂s_T/∂s_0‖（LSTM 与 GRU）"""
    norm_checks(decay, reference, [(kind, case) for kind in ("lstm", "gru") for case in constant_cases(kind, reference, device)], device, random=False)


@check(points=2)
def test_random_weight_norms(decay, reference, device):
    """Random non-zero weights: the value equals an autograd measurement through the course's step (LSTM 1, GRU 1)
    随机非零权重：数值等于经课程给定的单步函数用 autograd 测得的值（LSTM 1 个，GRU 1 个）"""
    norm_checks(decay, reference, [(kind, random_case(kind, reference, device)) for kind in ("lstm", "gru")], device, random=True)


# -- answer sheet ---------------------------------------------------------------------------------


def expected(p: dict) -> dict:
    """The sheet's numeric answers for the numbers `p` ((c) the gate, (d) retain and T, (e) the share kept over T_keep
    steps: σ(b)^T_keep = keep, so b = σ⁻¹ of the T_keep-th root)."""
    return {"bias_for_gate": logit(p["gate"]), "retain_power": p["retain"] ** p["T"], "bias_to_keep": logit(p["keep"] ** (1 / p["T_keep"]))}


def mistakes(p: dict) -> dict:
    """{key: {value a known mistake gives: its diagnosis}} for the numbers `p`."""
    gate, retain, T = p["gate"], p["retain"], p["T"]
    keep, span = p["keep"], p["T_keep"]
    off_by_one = (f"off by one step: {T} steps multiply exactly {T} factors", f"差了一步：{T} 步恰好乘 {T} 个因子")
    span_off_by_one = (f"off by one step: {span} steps multiply exactly {span} factors", f"差了一步：{span} 步恰好乘 {span} 个因子")
    estimate = (
        "the textbook's ln(k/ε) is an estimate for a large bias and a small ε; (e) asks for the exact bias, "
        "and here the estimate is off by more than the tolerance",
        "教材的 ln(k/ε) 是大偏置、小 ε 时的估计；(e) 要求精确的偏置，而这里估计值的误差超出了容差",
    )
    kept = keep ** (1 / span)  # the gate value that keeps `keep` over `span` steps
    return {
        "bias_for_gate": {
            gate: (
                f"that is the gate value; the bias b satisfies σ(b) = {gate:g}, so b = σ⁻¹({gate:g})",
                f"这是门值；偏置 b 满足 σ(b) = {gate:g}，即 b = σ⁻¹({gate:g})",
            ),
            -logit(gate): (
                f"logit sign: σ(−b) = 1 − σ(b), so that bias makes the gate 1 − {gate:g}",
                f"logit 符号错误：σ(−b) = 1 − σ(b)，这个偏置使门值成为 1 − {gate:g}",
            ),
            math.log10(gate / (1 - gate)): ("log10 instead of ln: σ⁻¹ uses the natural logarithm", "用了 log10 而非 ln：σ⁻¹ 使用自然对数"),
            sigma(gate): ("applied σ to the gate value; the bias is its inverse, σ⁻¹", "对门值取了 σ；偏置应是其反函数 σ⁻¹"),
            math.log(gate): (f"ln({gate:g}) is not the logit; σ⁻¹(p) = ln(p/(1 − p))", f"ln({gate:g}) 不是 logit；σ⁻¹(p) = ln(p/(1 − p))"),
        },
        "retain_power": {
            retain * T: (
                "multiplied retain by T; the T per-step factors multiply, so retain is raised to the power T",
                "把 retain 乘以 T 了；T 个逐步因子相乘，应是 retain 的 T 次幂",
            ),
            retain ** (T - 1): off_by_one,
            retain ** (T + 1): off_by_one,
            (1 - retain) ** T: (
                "used 1 − retain, the share forgotten; the state keeps the share retain",
                "用了 1 − retain（被遗忘的部分）；状态保留的是 retain",
            ),
            sigma(retain) ** T: (
                f"σ({retain:g})^{T}: {retain:g} is already the gate value, not its bias",
                f"σ({retain:g})^{T}：{retain:g} 已经是门值，不是偏置",
            ),
        },
        "bias_to_keep": {
            logit(keep): (
                f"that bias keeps {keep:g} after one step; the gate's factor is applied at each of the {span} steps",
                f"这个偏置只在一步之后保留 {keep:g}；门的因子在 {span} 步中的每一步都要乘一次",
            ),
            kept: (
                f"that is the gate value σ(b) that keeps {keep:g} over {span} steps; the question asks for its bias b",
                f"这是在 {span} 步后保留 {keep:g} 所需的门值 σ(b)；题目问的是它的偏置 b",
            ),
            -logit(kept): (
                "logit sign: σ(−b) = 1 − σ(b), so that bias makes the gate the share forgotten at each step",
                "logit 符号错误：σ(−b) = 1 − σ(b)，这个偏置让门值成为每一步遗忘的比例",
            ),
            math.log10(kept / (1 - kept)): ("log10 instead of ln: σ⁻¹ uses the natural logarithm", "用了 log10 而非 ln：σ⁻¹ 使用自然对数"),
            math.log(kept): ("the ln of the gate value is not the logit; σ⁻¹(p) = ln(p/(1 − p))", "门值的 ln 不是 logit；σ⁻¹(p) = ln(p/(1 − p))"),
            logit(keep**span): (
                f"raised {keep:g} to the power {span}: it is the product of the {span} per-step factors that must equal {keep:g}",
                f"把 {keep:g} 取了 {span} 次幂：应当是 {span} 个逐步因子的乘积等于 {keep:g}",
            ),
            logit((1 - keep) ** (1 / span)): (
                f"used 1 − {keep:g}, the share lost; the state must keep the share {keep:g} itself",
                f"用了 1 − {keep:g}（损失的部分）；状态应保留的是 {keep:g} 本身",
            ),
            logit(keep ** (1 / (span - 1))): span_off_by_one,
            logit(keep ** (1 / (span + 1))): span_off_by_one,
            math.log(span / (1 - keep)): estimate,
            math.log(span / (1 - keep) - 1): estimate,  # the estimate's γ·k = ε solved exactly: still an estimate
        },
    }


ANSWERS = Answers(expected, mistakes)  # what a student's numbers are answered with (grader.grading.numbers)


@check(points=1)
def test_bias_for_gate(answers, variant):
    """(c) the bias that makes a retention gate a given value
    (c) 使保留门取给定值的偏置"""
    answers.number("bias_for_gate", expected(variant)["bias_for_gate"], mistakes=mistakes(variant)["bias_for_gate"])


@check(points=1)
def test_retain_power(answers, variant):
    """(d) ‖∂s_T/∂s_0‖ for constant gates, retain and T as given
    (d) 门值恒定时的 ‖∂s_T/∂s_0‖，retain 与 T 如题所给"""
    answers.number("retain_power", expected(variant)["retain_power"], mistakes=mistakes(variant)["retain_power"])


@check(points=1)
def test_bias_to_keep(answers, variant):
    """(e) the retention bias that keeps a given share of ‖∂s_T/∂s_0‖ over T steps
    (e) 使 ‖∂s_T/∂s_0‖ 在 T 步后保留给定比例的保留门偏置"""
    answers.number("bias_to_keep", expected(variant)["bias_to_keep"], mistakes=mistakes(variant)["bias_to_keep"])
