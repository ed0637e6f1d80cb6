"""Hidden checks for ex01: cell-state arithmetic on the answer sheet (6 points).

The numbers are the student's (`variant`: f, c_prev, i, g, o from exercises/ex01_cell_state/variant.toml);
`expected` and `mistakes` compute the right values and those of the course spec's known mistakes from them,
so the feedback can name a mistake without printing the answer. The formulas come from
solutions/ex01_cell_state/answers.toml.
"""

import math

from grader.checks import check

GATE, REAL = "gate", "real"

COUPLED = ("coupled gate: (1 − f) was used where the input gate i belongs", "耦合门：在输入门 i 的位置用了 (1 − f)")
NO_FORGET_TERM = ("the forget-gate term is missing: this c_t keeps nothing of the old cell state",
                  "漏掉了遗忘门一项：这个 c_t 完全没有保留旧细胞状态")
NO_FORGET_GATE = ("the forget gate is missing: the old cell state is carried over whole, unscaled",
                  "漏掉了遗忘门：旧细胞状态被原样整个带了过来，没有缩放")
MULTIPLIED = ("multiplied the two terms: the part kept and the part written were multiplied together",
              "把两项相乘了：保留的部分与写入的部分被乘在了一起")
NO_TANH = ("forgot the tanh: this h_t reads the cell state unsquashed", "漏了 tanh：这个 h_t 直接读取了未经压缩的细胞状态")
TANH_OUTSIDE = ("tanh outside: the output gate was put inside the tanh", "tanh 位置错误：把输出门放进了 tanh 里面")


def expected(p: dict) -> dict:
    """The numeric answers for the numbers `p`."""
    c_t = p["f"] * p["c_prev"] + p["i"] * p["g"]
    return {"c_t": c_t, "h_t": p["o"] * math.tanh(c_t)}


def mistakes(p: dict) -> dict:
    """{key: {value a known mistake gives: its diagnosis}} for the numbers `p`."""
    f, c_prev, i, g, o = (p[n] for n in ("f", "c_prev", "i", "g", "o"))
    c_t = expected(p)["c_t"]
    return {
        "c_t": {
            f * c_prev + (1 - f) * g: COUPLED,
            i * g: NO_FORGET_TERM,
            (1 - f) * g: ("two mistakes: the forget-gate term is missing, and (1 − f) was used where the input gate i "
                          "belongs (coupled gate)",
                          "两处错误：漏掉了遗忘门一项，并且在输入门 i 的位置用了 (1 − f)（耦合门）"),
            c_prev + i * g: NO_FORGET_GATE,
            f * c_prev * i * g: MULTIPLIED,
        },
        "h_t": {
            o * c_t: NO_TANH,
            math.tanh(o * c_t): TANH_OUTSIDE,
            o * math.tanh(c_prev): ("used the old cell state: h_t reads the new c_t, not c_prev",
                                    "用了旧的细胞状态：h_t 读取新的 c_t，而不是 c_prev"),
        },
    }


@check(points=1)
def test_c_t(answers, variant):
    """c_t: the new cell state
    c_t：新的细胞状态"""
    answers.number("c_t", expected(variant)["c_t"], mistakes=mistakes(variant)["c_t"])


@check(points=2)
def test_h_t(answers, variant):
    """h_t: the new hidden state
    h_t：新的隐藏状态"""
    answers.number("h_t", expected(variant)["h_t"], mistakes=mistakes(variant)["h_t"])


@check(points=1.5)
def test_c_t_formula(answers, reference_answers):
    """c_t as a formula in f, c_prev, i, g
    c_t 用 f、c_prev、i、g 表示的公式"""
    answers.formula("c_t_formula", reference_answers["c_t_formula"],
                    symbols={"f": GATE, "c_prev": REAL, "i": GATE, "g": REAL}, mistakes={
        "f*c_prev + (1-f)*g": COUPLED,
        "i*g": NO_FORGET_TERM,
        "c_prev + i*g": NO_FORGET_GATE,
        "f*c_prev*i*g": MULTIPLIED,
    })


@check(points=1.5)
def test_h_t_formula(answers, reference_answers):
    """h_t as a formula in o, c_t
    h_t 用 o、c_t 表示的公式"""
    answers.formula("h_t_formula", reference_answers["h_t_formula"],
                    symbols={"o": GATE, "c_t": REAL}, mistakes={
        "o*c_t": NO_TANH,
        "tanh(o*c_t)": TANH_OUTSIDE,
    })
