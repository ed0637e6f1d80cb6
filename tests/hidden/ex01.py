"""Hidden checks for ex01: cell-state arithmetic on the answer sheet (6 points).

Expected answers come from solutions/ex01_cell_state/answers.toml; the known mistakes of the course
spec are named in the feedback. Given: f = 0.8, c_prev = 2, i = 0.25, candidate g = −0.4, o = 0.5.
"""

import math

from grader.checks import check

GATE, REAL = "gate", "real"
F, C_PREV, I, G, O = 0.8, 2.0, 0.25, -0.4, 0.5  # noqa: E741 (the question's data, named as the chapter names the gates)
C_T = F * C_PREV + I * G  # the new cell state, which h_t reads

COUPLED = ("coupled gate: (1 − f) was used where the input gate i belongs", "耦合门：在输入门 i 的位置用了 (1 − f)")
NO_FORGET_TERM = ("the forget-gate term is missing: this c_t keeps nothing of the old cell state",
                  "漏掉了遗忘门一项：这个 c_t 完全没有保留旧细胞状态")
NO_FORGET_GATE = ("the forget gate is missing: the old cell state is carried over whole, unscaled",
                  "漏掉了遗忘门：旧细胞状态被原样整个带了过来，没有缩放")
MULTIPLIED = ("multiplied the two terms: the part kept and the part written were multiplied together",
              "把两项相乘了：保留的部分与写入的部分被乘在了一起")
NO_TANH = ("forgot the tanh: this h_t reads the cell state unsquashed", "漏了 tanh：这个 h_t 直接读取了未经压缩的细胞状态")
TANH_OUTSIDE = ("tanh outside: the output gate was put inside the tanh", "tanh 位置错误：把输出门放进了 tanh 里面")


@check(points=1)
def test_c_t(answers, reference_answers):
    """c_t: the new cell state
    c_t：新的细胞状态"""
    answers.number("c_t", reference_answers["c_t"], mistakes={
        F * C_PREV + (1 - F) * G: COUPLED,
        I * G: NO_FORGET_TERM,
        (1 - F) * G: ("two mistakes: the forget-gate term is missing, and (1 − f) was used where the input gate i "
                      "belongs (coupled gate)",
                      "两处错误：漏掉了遗忘门一项，并且在输入门 i 的位置用了 (1 − f)（耦合门）"),
        C_PREV + I * G: NO_FORGET_GATE,
        F * C_PREV * I * G: MULTIPLIED,
    })


@check(points=2)
def test_h_t(answers, reference_answers):
    """h_t: the new hidden state
    h_t：新的隐藏状态"""
    answers.number("h_t", reference_answers["h_t"], mistakes={
        O * C_T: NO_TANH,
        math.tanh(O * C_T): TANH_OUTSIDE,
        O * math.tanh(C_PREV): ("used the old cell state: this h_t reads c_prev where the new cell state belongs",
                                "用了旧的细胞状态：这个 h_t 在应读取新细胞状态的地方读了 c_prev"),
    })


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
