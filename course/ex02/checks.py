"""Hidden checks for ex02: the direct gradient path, on the answer sheet (10 points).

The numbers are the student's (`variant`, declared in exercises/ex02_gradient_path/variant.toml); `expected` and
`mistakes` compute the right values and those of the known mistakes from them, so the feedback can name a mistake
without printing the reference answer. Formulas and statements come from solutions/ex02_gradient_path/answers.toml.
"""

import math

from grader.checks import Answers, carried_forward, check, own_formula, partial


def sigma(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


F_TIMES_K = ("multiplied f by k: the steps were counted as one product of the gate and the number of steps", "把 f 乘以 k 了：把各步算成了门值与步数的一次乘积")
WRONG_COLUMN = ("that is the value for the other number of steps in the table; check k", "这是表中另一个步数的值；请核对 k")
ROUNDED_SIGMA = (
    "σ(1) was rounded too far before the power; a k-th power multiplies the rounding error by k – "
    "keep at least 3 significant digits of σ(1) (0.731 is enough) or write sigma(1)^k",
    "在取幂之前把 σ(1) 舍入得太粗了；k 次幂把舍入误差放大 k 倍——σ(1) 至少保留 3 位有效数字（0.731 即可），或直接写 sigma(1)^k",
)
# σ(1) rounded to the textbook's 0.731 changes σ(1)^k by 0.24 % at k = 30; to 0.73, by 2.9 % at k = 20, 4.3 % at 30
ROUNDING_RTOL = 0.02
RTOL = {"sigma1_power": ROUNDING_RTOL, "ratio_bias1_bias0": ROUNDING_RTOL}  # keys judged within 2 %
PREACT_SYMBOLS = {"k": "positive_integer", "epsilon": "gate"}
SIGMA0 = (
    "used σ(0) = 0.5, the gate at bias 0; this key asks for the gate at bias 1, σ(1)",
    "用了 σ(0) = 0.5，即偏置为 0 时的门值；本题问的是偏置为 1 时的门值 σ(1)",
)
WRONG_BIAS = (
    "that is the factor for another forget bias (one of the lecture's 0, 1, 2); f = σ(b) with this question's b",
    "这是其他遗忘门偏置（第 16 讲的 0、1、2 之一）下的系数；f = σ(b)，b 取本题的偏置",
)
EXACT_SOLUTION = (
    "that is the exact solution of σ(z) = 1 − ε/k; the question asks for the textbook's approximation γ ≈ e^(−z)",
    "这是 σ(z) = 1 − ε/k 的精确解；本题要的是教材的近似 γ ≈ e^(−z)",
)


PREACT_MISTAKES = {
    "ln(epsilon/k)": (
        "sign error: for ε < k this z is negative, which closes the gate instead of holding it open",
        "符号错误：ε < k 时这个 z 为负，门会关闭而不是保持打开",
    ),
    "ln(k/epsilon)/ln(10)": ("used log10: a base-10 logarithm does not undo the gate's e^(−z)", "用了以 10 为底的对数：它不能反解门里的 e^(−z)"),
    "k/epsilon": ("forgot the logarithm: that is e^z, not z", "漏了对数：这是 e^z，不是 z"),
    "epsilon/k": ("that is the bound on γ = 1 − f, not the pre-activation z", "这是 γ = 1 − f 的界，不是预激活 z"),
    "1 - epsilon/k": ("that is the gate value f, not its pre-activation z", "这是门值 f，不是它的预激活 z"),
    "ln(k*epsilon)": (
        "ε on the wrong side: here a stricter ε (smaller) asks for a smaller z, not a larger one",
        "ε 放错了位置：这里 ε 越严格（越小），要求的 z 反而越小",
    ),
    "ln(1/epsilon)": ("k is missing: the decay accumulates over k steps", "漏了 k：衰减在 k 步上累积"),
    "ln(k/epsilon - 1)": EXACT_SOLUTION,
}


def expected(p: dict) -> dict:
    """The numeric answers for the numbers `p`."""
    k_short, k_long = p["k_short"], p["k_long"]
    return {
        "three_step_factor": p["g1"] * p["g2"] * p["g3"],
        "w_up_power": p["w_up"] ** k_short,
        "w_down_power": p["w_down"] ** k_long,
        "sigma1_power": sigma(1.0) ** k_short,
        "f_near_power": p["f_near"] ** k_long,
        "ratio_bias1_bias0": (sigma(1.0) / 0.5) ** k_short,
        "preact_value": math.log(p["k"] / p["epsilon"]),
        "bias_sim": sigma(p["bias"]) ** p["steps"],
    }


def mistakes(p: dict) -> dict:
    """{key: {value a known mistake gives: its diagnosis}} for the numbers `p`."""
    gates, k_short, k_long = (p["g1"], p["g2"], p["g3"]), p["k_short"], p["k_long"]
    a, b, c = gates
    s1 = sigma(1.0)
    k, eps = p["k"], p["epsilon"]
    keep = (1 - eps) ** (1 / k)  # the gate that keeps exactly 1 − ε over k steps
    f, n = sigma(p["bias"]), p["steps"]
    off_by_one = (f"off by one step: {n} steps multiply exactly {n} gate factors", f"差了一步：{n} 步恰好乘 {n} 个门因子")

    def off_by_one_power(base: float, steps: int) -> dict:
        """The powers one step off, named: k steps multiply exactly k factors."""
        named = (f"off by one step: {steps} steps multiply exactly {steps} factors", f"差了一步：{steps} 步恰好乘 {steps} 个因子")
        return {base ** (steps - 1): named, base ** (steps + 1): named}

    return {
        "three_step_factor": {
            a + b + c: ("added the gates; along the direct path the per-step factors diag(f) multiply", "把门值相加了；直接路径上逐步因子 diag(f) 是相乘的"),
            (1 - a) * (1 - b) * (1 - c): ("used 1 − f, the share forgotten; the path keeps the share f", "用了 1 − f（被遗忘的部分）；通道保留的是 f 这一部分"),
            (a + b + c) / 3: ("averaged the gates; the per-step factors multiply", "对门值取了平均；逐步因子应相乘"),
            **{gate: ("kept only one step's gate; all three steps' factors multiply", "只用了一步的门值；三步的因子要连乘") for gate in gates},
        },
        "w_up_power": {p["w_up"] * k_short: F_TIMES_K, p["w_up"] ** k_long: WRONG_COLUMN, **off_by_one_power(p["w_up"], k_short)},
        "w_down_power": {p["w_down"] * k_long: F_TIMES_K, p["w_down"] ** k_short: WRONG_COLUMN, **off_by_one_power(p["w_down"], k_long)},
        "sigma1_power": {
            0.5**k_short: SIGMA0,
            s1 * k_short: F_TIMES_K,
            s1**k_long: WRONG_COLUMN,
            0.73**k_short: ROUNDED_SIGMA,
            1.0: ("took the bias 1 as the gate value; the gate is σ(bias)", "把偏置 1 当成了门值；门值是 σ(偏置)"),
            **off_by_one_power(s1, k_short),
        },
        "f_near_power": {p["f_near"] * k_long: F_TIMES_K, p["f_near"] ** k_short: WRONG_COLUMN, **off_by_one_power(p["f_near"], k_long)},
        "ratio_bias1_bias0": {
            (0.5 / s1) ** k_short: ("inverted the ratio: bias 1's factor over bias 0's is asked", "比值颠倒了：要的是偏置 1 的系数除以偏置 0 的系数"),
            s1**k_short: ("gave σ(1)^k itself (or the difference), not the ratio of the two factors", "给的是 σ(1)^k 本身（或两者之差），不是两个系数之比"),
            s1 / 0.5: (
                "that is the ratio after one step; over k steps the per-step ratio is raised to the k-th power",
                "这是一步的比值；k 步后每步的比值要取 k 次幂",
            ),
            (0.73 / 0.5) ** k_short: ROUNDED_SIGMA,
        },
        "preact_value": _named(
            {
                -math.log(k / eps): ("sign error: z must be large and positive", "符号错误：z 必须是较大的正数"),
                math.log10(k / eps): ("used log10; γ ≈ e^(−z) is undone by the natural logarithm ln", "用了以 10 为底的对数；γ ≈ e^(−z) 要用自然对数 ln 反解"),
                k / eps: ("forgot the logarithm: that is e^z, not z", "漏了对数：这是 e^z，不是 z"),
                eps / k: ("that is the bound on γ = 1 − f, not the pre-activation z", "这是 γ = 1 − f 的界，不是预激活 z"),
                1 - eps / k: ("that is the gate value f, not its pre-activation z", "这是门值 f，不是它的预激活 z"),
            },
            [
                (math.log(k * eps), ("ε belongs in the denominator: γ ≲ ε/k", "ε 应在分母上：γ ≲ ε/k")),
                (math.log(1 / eps), ("k is missing: the decay accumulates over k steps", "漏了 k：衰减在 k 步上累积")),
                (math.log(k / eps - 1), EXACT_SOLUTION),
                (
                    math.log(keep / (1 - keep)),  # the exact logit of f = (1 − ε)^(1/k), without γ·k ≈ ε or γ ≈ e^(−z)
                    (
                        "that is the exact logit; this question asks for the textbook's approximation γ·k ≲ ε with γ ≈ e^(−z)",
                        "这是精确的 logit；本题要的是教材的近似 γ·k ≲ ε、γ ≈ e^(−z)",
                    ),
                ),
            ],
        ),
        "bias_sim": _named(
            {
                f * n: F_TIMES_K,
                f ** (n - 1): off_by_one,
                f ** (n + 1): off_by_one,
                f: (f"that is one step's factor; over {n} steps the factors multiply", f"这只是一步的因子；{n} 步要连乘"),
            },
            [(sigma(other) ** n, WRONG_BIAS) for other in (0.0, 1.0, 2.0)],
        ),
    }


ANSWERS = Answers(expected, mistakes, rtol=RTOL)  # what a student's numbers are answered with (grader.grading.numbers)


def _named(mistakes: dict, more: list) -> dict:
    """`mistakes` with `more` (value, diagnosis) pairs added; two mistakes that give one value are both named."""
    for value, (en, zh) in more:
        if value in mistakes and en not in mistakes[value][0]:
            mistakes[value] = (f"{mistakes[value][0]}; or {en}", f"{mistakes[value][1]}；或{zh}")
        else:
            mistakes.setdefault(value, (en, zh))
    return mistakes


def _number(answers, variant, key: str) -> None:
    answers.number(key, expected(variant)[key], rtol=RTOL.get(key), mistakes=mistakes(variant)[key])


@check(points=1)
def test_three_step_factor(answers, variant):
    """(a) the three-step factor along the direct path
    (a) 直接路径上的三步系数"""
    _number(answers, variant, "three_step_factor")


@check(points=1)
def test_const_gate_factor(answers, reference_answers):
    """(b) the k-step factor of a constant gate, as a formula in f, k
    (b) 常数门的 k 步系数，用 f、k 表示的公式"""
    answers.formula(
        "const_gate_factor",
        reference_answers["const_gate_factor"],
        symbols={"f": "gate", "k": "positive_integer"},
        mistakes={
            "f*k": F_TIMES_K,
            "(1-f)^k": ("used 1 − f, the share forgotten, as each step's factor", "把被遗忘的部分 1 − f 当成了每一步的因子"),
            "f^(k-1)": ("off by one: this counts one gate factor fewer than there are steps", "差了一个：门因子比步数少了一个"),
            "f^(k+1)": ("off by one: this counts one gate factor more than there are steps", "差了一个：门因子比步数多了一个"),
            "f": ("that is one step's factor: the other k − 1 steps are left out", "这只是一步的因子：漏掉了其余 k − 1 步"),
            "exp(-k*(1-f))": (
                "that is the approximation e^(−γk) with γ = 1 − f; the exact factor is asked",
                "这是近似式 e^(−γk)（γ = 1 − f）；本题要的是精确系数",
            ),
        },
    )


@check(points=2)
def test_scalar_table(answers, variant):
    """(c) the scalar table: w above and below 1, f = σ(1) (within 2 %) and f near 1
    (c) 标量表格：w 大于与小于 1、f = σ(1)（误差 2 % 以内）以及 f 接近 1"""
    partial([lambda key=key: _number(answers, variant, key) for key in ("w_up_power", "w_down_power", "sigma1_power", "f_near_power")])


@check(points=1)
def test_ratio_bias1_bias0(answers, variant):
    """(c) the head start of forget bias 1 over bias 0 (within 2 %)
    (c) 遗忘偏置 1 相对偏置 0 的领先倍数（误差 2 % 以内）"""
    _number(answers, variant, "ratio_bias1_bias0")


@check(points=1)
def test_preact_formula(answers, reference_answers):
    """(d) the pre-activation needed to keep 1 − ε over k steps, as a formula in k, epsilon
    (d) 在 k 步上保留 1 − ε 所需的预激活，用 k、epsilon 表示的公式"""
    answers.formula("preact_formula", reference_answers["preact_formula"], symbols=PREACT_SYMBOLS, mistakes=PREACT_MISTAKES)


@check(points=1)
def test_preact_value(answers, variant, reference_answers):
    """(d) that pre-activation for the given k and ε
    (d) 给定 k 与 ε 时的那个预激活值"""
    formula = own_formula(answers, "preact_formula", reference_answers["preact_formula"], PREACT_SYMBOLS, PREACT_MISTAKES)
    value = formula({"k": variant["k"], "epsilon": variant["epsilon"]}) if formula else None
    own = [("preact_formula", (value, {}))] if value is not None else []  # its value follows from the formula
    carried_forward(answers, "preact_value", answers.number, (expected(variant)["preact_value"], mistakes(variant)["preact_value"]), own)


@check(points=1)
def test_bias_sim(answers, variant):
    """(e) lecture 16's simulation, another forget bias and number of steps
    (e) 第 16 讲的模拟：另一个遗忘偏置与步数"""
    _number(answers, variant, "bias_sim")


@check(points=2)
def test_statements(answers, reference_answers):
    """(f) true or false: the direct path only decays; gating guarantees no vanishing
    (f) 判断正误：直接路径只会衰减；门控保证梯度不消失"""
    partial(
        [
            lambda: answers.boolean(
                "only_decays",
                reference_answers["only_decays"],
                mistake=(
                    "every factor on the direct path is a sigmoid output in (0, 1), so their product cannot exceed 1",
                    "直接路径上的每个因子都是 (0, 1) 内的 sigmoid 输出，它们的乘积不会超过 1",
                ),
            ),
            lambda: answers.boolean(
                "guarantees_no_vanishing",
                reference_answers["guarantees_no_vanishing"],
                mistake=(
                    "gating only mitigates vanishing: the readout through o ⊙ tanh′ discounts, the indirect paths "
                    "through W remain, and a gate below 1 still decays over many steps (textbook §2.3.8)",
                    "门控只是缓解梯度消失：经 o ⊙ tanh′ 的读出会打折，经 W 的间接路径仍在，门值小于 1 时衰减仍随步数累积（教材 2.3.8 节）",
                ),
            ),
        ]
    )
