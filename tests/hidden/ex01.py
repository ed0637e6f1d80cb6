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
NO_FORGET_TERM = ("the forget-gate term is missing: c_t also keeps the share f of the old cell state",
                  "漏掉了遗忘门一项：c_t 还要保留旧细胞状态的 f 这一部分")
NO_FORGET_GATE = ("the forget gate is missing: the old cell state is scaled by f", "漏掉了遗忘门：旧细胞状态要乘以 f")
MULTIPLIED = ("multiplied the two terms: keeping and writing are added, not multiplied", "把两项相乘了：保留与写入是相加关系")
NO_TANH = ("forgot the tanh: h_t = o ⊙ tanh(c_t), not o ⊙ c_t", "漏了 tanh：h_t = o ⊙ tanh(c_t)，不是 o ⊙ c_t")
TANH_OUTSIDE = ("tanh outside: h_t = o ⊙ tanh(c_t), not tanh(o ⊙ c_t)", "tanh 位置错误：h_t = o ⊙ tanh(c_t)，不是 tanh(o ⊙ c_t)")


@check(points=1)
def test_c_t(answers, reference_answers):
    """c_t: the new cell state"""
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
    """h_t: the new hidden state"""
    answers.number("h_t", reference_answers["h_t"], mistakes={
        O * C_T: NO_TANH,
        math.tanh(O * C_T): TANH_OUTSIDE,
        O * math.tanh(C_PREV): ("used the old cell state: h_t reads the new c_t, not c_prev",
                                "用了旧的细胞状态：h_t 读取新的 c_t，而不是 c_prev"),
    })


@check(points=1.5)
def test_c_t_formula(answers, reference_answers):
    """c_t as a formula in f, c_prev, i, g"""
    answers.formula("c_t_formula", reference_answers["c_t_formula"],
                    symbols={"f": GATE, "c_prev": REAL, "i": GATE, "g": REAL}, mistakes={
        "f*c_prev + (1-f)*g": COUPLED,
        "i*g": NO_FORGET_TERM,
        "c_prev + i*g": NO_FORGET_GATE,
        "f*c_prev*i*g": MULTIPLIED,
    })


@check(points=1.5)
def test_h_t_formula(answers, reference_answers):
    """h_t as a formula in o, c_t"""
    answers.formula("h_t_formula", reference_answers["h_t_formula"],
                    symbols={"o": GATE, "c_t": REAL}, mistakes={
        "o*c_t": NO_TANH,
        "tanh(o*c_t)": TANH_OUTSIDE,
    })
