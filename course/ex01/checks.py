"""Hidden checks for ex01: cell-state arithmetic on the answer sheet (6 points).

The numbers are the student's (`variant`: f, c_prev, i, g, o from exercises/ex01_cell_state/variant.toml);
`expected` and `mistakes` compute the right values and those of the course spec's known mistakes from them,
so the feedback can name a mistake without printing the answer. The formulas come from
solutions/ex01_cell_state/answers.toml. A number that follows from the student's own wrong c_t or named wrong formula
(h_t from their c_t; c_t or h_t as their formula gives it) keeps its points: the mistake is charged once, where it is made.
"""

import math

from grader.checks import Answers, carried_forward, check, own_formula, own_number

GATE, REAL = "gate", "real"
C_SYMBOLS = {"f": GATE, "c_prev": REAL, "i": GATE, "g": REAL}
H_SYMBOLS = {"o": GATE, "c_t": REAL}

COUPLED = ("coupled gate: (1 − f) was used where the input gate i belongs", "耦合门：在输入门 i 的位置用了 (1 − f)")
NO_FORGET_TERM = ("the forget-gate term is missing: this c_t keeps nothing of the old cell state", "漏掉了遗忘门一项：这个 c_t 完全没有保留旧细胞状态")
NO_FORGET_GATE = ("the forget gate is missing: the old cell state is carried over whole, unscaled", "漏掉了遗忘门：旧细胞状态被原样整个带了过来，没有缩放")
MULTIPLIED = ("multiplied the two terms: the part kept and the part written were multiplied together", "把两项相乘了：保留的部分与写入的部分被乘在了一起")
NO_TANH = ("forgot the tanh: this h_t reads the cell state unsquashed", "漏了 tanh：这个 h_t 直接读取了未经压缩的细胞状态")
TANH_OUTSIDE = ("tanh outside: the output gate was put inside the tanh", "tanh 位置错误：把输出门放进了 tanh 里面")
C_MISTAKES = {"f*c_prev + (1-f)*g": COUPLED, "i*g": NO_FORGET_TERM, "c_prev + i*g": NO_FORGET_GATE, "f*c_prev*i*g": MULTIPLIED}
H_MISTAKES = {"o*c_t": NO_TANH, "tanh(o*c_t)": TANH_OUTSIDE}


def expected(p: dict) -> dict:
    """The numeric answers for the numbers `p`."""
    c_t = p["f"] * p["c_prev"] + p["i"] * p["g"]
    return {"c_t": c_t, "h_t": p["o"] * math.tanh(c_t)}


def mistakes(p: dict, c_t: float | None = None) -> dict:
    """{key: {value a known mistake gives: its diagnosis}} for the numbers `p` (h_t's from `c_t`, by default the right one)."""
    f, c_prev, i, g, o = (p[n] for n in ("f", "c_prev", "i", "g", "o"))
    c_t = expected(p)["c_t"] if c_t is None else c_t
    return {
        "c_t": {
            f * c_prev + (1 - f) * g: COUPLED,
            i * g: NO_FORGET_TERM,
            (1 - f) * g: (
                "two mistakes: the forget-gate term is missing, and (1 − f) was used where the input gate i belongs (coupled gate)",
                "两处错误：漏掉了遗忘门一项，并且在输入门 i 的位置用了 (1 − f)（耦合门）",
            ),
            c_prev + i * g: NO_FORGET_GATE,
            f * c_prev * i * g: MULTIPLIED,
        },
        "h_t": {
            o * c_t: NO_TANH,
            math.tanh(o * c_t): TANH_OUTSIDE,
            o * math.tanh(c_prev): ("used the old cell state: h_t reads the new c_t, not c_prev", "用了旧的细胞状态：h_t 读取新的 c_t，而不是 c_prev"),
        },
    }


ANSWERS = Answers(expected, mistakes)  # what a student's numbers are answered with (grader.grading.numbers)


@check(points=1)
def test_c_t(answers, variant, reference_answers):
    """c_t: the new cell state
    c_t：新的细胞状态"""
    formula = own_formula(answers, "c_t_formula", reference_answers["c_t_formula"], C_SYMBOLS, C_MISTAKES)
    own = [("c_t_formula", (value, {}))] if formula and (value := formula(variant)) is not None else []
    carried_forward(answers, "c_t", answers.number, (expected(variant)["c_t"], mistakes(variant)["c_t"]), own)


@check(points=2)
def test_h_t(answers, variant, reference_answers):
    """h_t: the new hidden state
    h_t：新的隐藏状态"""
    right = expected(variant)
    c_t = own_number(answers, "c_t", right["c_t"], mistakes(variant)["c_t"])
    formula = own_formula(answers, "h_t_formula", reference_answers["h_t_formula"], H_SYMBOLS, H_MISTAKES)
    own = []
    if c_t is not None:
        own.append(("c_t", (variant["o"] * math.tanh(c_t), mistakes(variant, c_t)["h_t"])))
    for source, cell in [("h_t_formula", right["c_t"])] + [(("c_t and h_t_formula", "c_t 与 h_t_formula"), c_t)] * (c_t is not None):
        if formula and (value := formula({"o": variant["o"], "c_t": cell})) is not None:
            own.append((source, (value, {})))
    carried_forward(answers, "h_t", answers.number, (right["h_t"], mistakes(variant)["h_t"]), own)


@check(points=1.5)
def test_c_t_formula(answers, reference_answers):
    """c_t as a formula in f, c_prev, i, g
    c_t 用 f、c_prev、i、g 表示的公式"""
    answers.formula("c_t_formula", reference_answers["c_t_formula"], symbols=C_SYMBOLS, mistakes=C_MISTAKES)


@check(points=1.5)
def test_h_t_formula(answers, reference_answers):
    """h_t as a formula in o, c_t
    h_t 用 o、c_t 表示的公式"""
    answers.formula("h_t_formula", reference_answers["h_t_formula"], symbols=H_SYMBOLS, mistakes=H_MISTAKES)
