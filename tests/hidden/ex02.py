"""Hidden checks for ex02: the direct gradient path, on the answer sheet (10 points).

Expected answers come from solutions/ex02_gradient_path/answers.toml. Each known mistake below is
the value or formula that mistake produces, computed from the question's data, so the feedback can
name it without printing the reference answer.
"""

import math

from grader.checks import check, partial

GATES = (0.9, 0.8, 0.5)  # question (a)


def sigma(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


F_TIMES_K = ("multiplied f by k: the steps were counted as one product of the gate and the number of steps",
             "把 f 乘以 k 了：把各步算成了门值与步数的一次乘积")
WRONG_COLUMN = ("that is the value for the other number of steps in the table; check k",
                "这是表中另一个步数的值；请核对 k")
ROUNDED_SIGMA = ("σ(1) was rounded too far before the power; the 30th power multiplies the rounding error by 30 – "
                 "keep at least 3 significant digits of σ(1) (0.731 is enough) or write sigma(1)^30",
                 "在取幂之前把 σ(1) 舍入得太粗了；30 次幂把舍入误差放大 30 倍——σ(1) 至少保留 3 位有效数字"
                 "（0.731 即可），或直接写 sigma(1)^30")
ROUNDING_RTOL = 0.02  # σ(1) rounded to the textbook's 0.731 changes σ(1)^30 by 0.24 %; to 0.73, by 4.3 %
SIGMA0 = ("used σ(0) = 0.5, the gate at bias 0; this key asks for the gate at bias 1, σ(1)",
          "用了 σ(0) = 0.5，即偏置为 0 时的门值；本题问的是偏置为 1 时的门值 σ(1)")
WRONG_BIAS = ("that is the factor for another forget bias; this question uses bias 2, f = σ(2)",
              "这是其他遗忘门偏置下的系数；本题的偏置为 2，即 f = σ(2)")
OFF_BY_ONE = ("off by one step: this counts one gate factor more or fewer than there are steps",
              "差了一步：门因子的个数比步数多了或少了一个")


@check(points=1)
def test_three_step_factor(answers, reference_answers):
    """(a) the three-step factor along the direct path
    (a) 直接路径上的三步系数"""
    a, b, c = GATES
    answers.number("three_step_factor", reference_answers["three_step_factor"], mistakes={
        a + b + c: ("added the gates: the steps were treated as paths side by side, not one after another",
                   "把门值相加了：把依次经过的各步当成了并列的路径"),
        (1 - a) * (1 - b) * (1 - c): ("used 1 − f, the share forgotten, as each step's factor",
                                     "把被遗忘的部分 1 − f 当成了每一步的因子"),
        (a + b + c) / 3: ("averaged the gates: one typical gate does not stand for a path of three steps",
                         "对门值取了平均：一个平均门值代表不了三步的路径"),
        **{gate: ("kept only one step's gate: the other two steps also scale the path", "只用了一步的门值：另外两步也会缩放这条路径")
           for gate in GATES},
    })


@check(points=1)
def test_const_gate_factor(answers, reference_answers):
    """(b) the k-step factor of a constant gate, as a formula in f, k
    (b) 常数门的 k 步系数，用 f、k 表示的公式"""
    answers.formula("const_gate_factor", reference_answers["const_gate_factor"],
                    symbols={"f": "gate", "k": "positive_integer"}, mistakes={
        "f*k": F_TIMES_K,
        "(1-f)^k": ("used 1 − f, the share forgotten, as each step's factor",
                   "把被遗忘的部分 1 − f 当成了每一步的因子"),
        "f^(k-1)": ("off by one: this counts one gate factor fewer than there are steps", "差了一个：门因子比步数少了一个"),
        "f^(k+1)": ("off by one: this counts one gate factor more than there are steps", "差了一个：门因子比步数多了一个"),
        "f": ("that is one step's factor: the other k − 1 steps are left out", "这只是一步的因子：漏掉了其余 k − 1 步"),
        "exp(-k*(1-f))": ("that is the approximation e^(−γk) with γ = 1 − f; the exact factor is asked",
                         "这是近似式 e^(−γk)（γ = 1 − f）；本题要的是精确系数"),
    })


@check(points=2)
def test_scalar_table(answers, reference_answers):
    """(c) the textbook's scalar table: w = 1.05 and 0.95, f = σ(1) (within 2 %) and 0.99
    (c) 教材的标量表：w = 1.05 与 0.95，f = σ(1)（误差 2 % 以内）与 0.99"""
    s1 = sigma(1.0)
    table = {  # key: (tolerance, known mistakes); None is the course's tolerance
        "w105_k30": (None, {1.05 * 30: F_TIMES_K, 1.05 ** 100: WRONG_COLUMN}),
        "w095_k100": (None, {0.95 * 100: F_TIMES_K, 0.95 ** 30: WRONG_COLUMN}),
        "sigma1_k30": (ROUNDING_RTOL, {
            0.5 ** 30: SIGMA0, s1 * 30: F_TIMES_K, s1 ** 100: WRONG_COLUMN, 0.73 ** 30: ROUNDED_SIGMA,
            1.0 ** 30: ("took the bias 1 as the gate value; the gate is σ(bias)", "把偏置 1 当成了门值；门值是 σ(偏置)")}),
        "f099_k100": (None, {0.99 * 100: F_TIMES_K, 0.99 ** 30: WRONG_COLUMN}),
    }
    partial([lambda key=key, rtol=rtol, wrong=wrong: answers.number(key, reference_answers[key], rtol=rtol, mistakes=wrong)
                for key, (rtol, wrong) in table.items()])


@check(points=1)
def test_ratio_bias1_bias0(answers, reference_answers):
    """(c) the 30-step head start of forget bias 1 over bias 0 (within 2 %)
    (c) 遗忘门偏置 1 相对偏置 0 在 30 步上的领先倍数（误差 2 % 以内）"""
    s1 = sigma(1.0)
    answers.number("ratio_bias1_bias0_k30", reference_answers["ratio_bias1_bias0_k30"], rtol=ROUNDING_RTOL, mistakes={
        0.5 ** 30 / s1 ** 30: ("inverted the ratio: bias 1's factor over bias 0's is asked",
                              "比值颠倒了：要的是偏置 1 的系数除以偏置 0 的系数"),
        s1 ** 30: ("gave σ(1)^30 itself (or the difference), not the ratio of the two factors",
                  "给的是 σ(1)^30 本身（或两者之差），不是两个系数之比"),
        s1 / 0.5: ("that is the ratio after one step; over 30 steps the per-step ratio is raised to the 30th power",
                  "这是一步的比值；30 步后每步的比值要取 30 次幂"),
        0.73 ** 30 / 0.5 ** 30: ROUNDED_SIGMA,
    })


@check(points=1)
def test_preact_formula(answers, reference_answers):
    """(d) the pre-activation needed to keep 1 − ε over k steps, as a formula in k, epsilon
    (d) 在 k 步上保留 1 − ε 所需的预激活，用 k、epsilon 表示的公式"""
    sign = ("sign error: for ε < k this z is negative, which closes the gate instead of holding it open",
            "符号错误：ε < k 时这个 z 为负，门会关闭而不是保持打开")
    answers.formula("preact_formula", reference_answers["preact_formula"],
                    symbols={"k": "positive_integer", "epsilon": "gate"}, mistakes={
        "ln(epsilon/k)": sign,
        "ln(k/epsilon)/ln(10)": ("used log10: a base-10 logarithm does not undo the gate's e^(−z)",
                                "用了以 10 为底的对数：它不能反解门里的 e^(−z)"),
        "k/epsilon": ("forgot the logarithm: that is e^z, not z", "漏了对数：这是 e^z，不是 z"),
        "epsilon/k": ("that is the bound on γ = 1 − f, not the pre-activation z", "这是 γ = 1 − f 的界，不是预激活 z"),
        "1 - epsilon/k": ("that is the gate value f, not its pre-activation z", "这是门值 f，不是它的预激活 z"),
        "ln(k*epsilon)": ("ε on the wrong side: here a stricter ε (smaller) asks for a smaller z, not a larger one",
                          "ε 放错了位置：这里 ε 越严格（越小），要求的 z 反而越小"),
        "ln(1/epsilon)": ("k is missing: the decay accumulates over k steps", "漏了 k：衰减在 k 步上累积"),
    })


@check(points=1)
def test_preact_value(answers, reference_answers):
    """(d) that pre-activation for k = 100, ε = 0.1
    (d) k = 100、ε = 0.1 时的该预激活值"""
    k, eps = 100, 0.1
    exact = math.log(k / -math.log1p(-eps))  # z from γ = −ln(1 − ε)/k, without γ·k ≈ ε
    answers.number("preact_k100_eps01", reference_answers["preact_k100_eps01"], mistakes={
        -math.log(k / eps): ("sign error: a negative z closes the gate instead of holding it open",
                             "符号错误：z 为负时门会关闭而不是保持打开"),
        math.log10(k / eps): ("used log10: a base-10 logarithm does not undo the gate's e^(−z)",
                             "用了以 10 为底的对数：它不能反解门里的 e^(−z)"),
        k / eps: ("forgot the logarithm: that is e^z, not z", "漏了对数：这是 e^z，不是 z"),
        eps / k: ("that is the bound on γ = 1 − f, not the pre-activation z", "这是 γ = 1 − f 的界，不是预激活 z"),
        1 - eps / k: ("that is the gate value f, not its pre-activation z", "这是门值 f，不是它的预激活 z"),
        # ln(k·ε) and ln(1/ε) are both ln 10 here, so this value names both mistakes
        math.log(k * eps): ("ε on the wrong side (a stricter ε must ask for a larger z), or k is missing (the decay "
                            "accumulates over k steps)",
                            "ε 放错了位置（ε 越严格，要求的 z 应越大），或漏了 k（衰减在 k 步上累积）"),
        exact: ("that is the exact logit; this question asks for the textbook's approximation γ·k ≲ ε with γ ≈ e^(−z)",
               "这是精确的 logit；本题要的是教材的近似 γ·k ≲ ε、γ ≈ e^(−z)"),
    })


@check(points=1)
def test_bias2_k10(answers, reference_answers):
    """(e) lecture 16's simulation: forget bias 2 over 10 steps
    (e) 第 16 讲的模拟：遗忘门偏置 2，10 步"""
    f = sigma(2.0)
    answers.number("bias2_k10", reference_answers["bias2_k10"], mistakes={
        sigma(0.0) ** 10: WRONG_BIAS,
        sigma(1.0) ** 10: WRONG_BIAS,
        f * 10: F_TIMES_K,
        f ** 9: OFF_BY_ONE,
        f ** 11: OFF_BY_ONE,
        f: ("that is one step's factor: the other nine steps are left out", "这只是一步的因子：漏掉了其余 9 步"),
    })


@check(points=2)
def test_statements(answers, reference_answers):
    """(f) true or false: the direct path only decays; gating guarantees no vanishing
    (f) 判断正误：直接路径只会衰减；门控保证梯度不消失"""
    partial([
        lambda: answers.boolean("only_decays", reference_answers["only_decays"], mistake=(
            "every factor on the direct path is a sigmoid output in (0, 1), so their product cannot exceed 1",
            "直接路径上的每个因子都是 (0, 1) 内的 sigmoid 输出，它们的乘积不会超过 1")),
        lambda: answers.boolean("guarantees_no_vanishing", reference_answers["guarantees_no_vanishing"], mistake=(
            "gating only mitigates vanishing: the readout through o ⊙ tanh′ discounts, the indirect paths "
            "through W remain, and a gate below 1 still decays over many steps (textbook §2.3.8)",
            "门控只是缓解梯度消失：经 o ⊙ tanh′ 的读出会打折，经 W 的间接路径仍在，门值小于 1 时衰减仍随步数累积"
            "（教材 2.3.8 节）")),
    ])
