"""Hidden checks for ex01: cell-state arithmetic on the answer sheet (6 points).

Expected answers come from solutions/ex01_cell_state/answers.toml; the known mistakes of the course
spec are named in the feedback. Given: f = 0.8, c_prev = 2, i = 0.25, candidate g = −0.4, o = 0.5.
"""

from grader.checks import check

GATE, REAL = "gate", "real"


@check(points=1)
def test_c_t(answers, reference_answers):
    """c_t: the new cell state"""
    answers.number("c_t", reference_answers["c_t"], mistakes={
        1.52: ("coupled gate: (1 − f) was used where the input gate i belongs",
               "耦合门：在输入门 i 的位置用了 (1 − f)"),
        -0.08: ("the forget gate term is missing: c_t keeps f ⊙ c_prev", "漏掉了遗忘门一项：c_t 包含 f ⊙ c_prev"),
    })


@check(points=2)
def test_h_t(answers, reference_answers):
    """h_t: the new hidden state"""
    answers.number("h_t", reference_answers["h_t"], mistakes={
        0.75: ("forgot the tanh: h_t = o ⊙ tanh(c_t), not o ⊙ c_t", "漏了 tanh：h_t = o ⊙ tanh(c_t)，不是 o ⊙ c_t"),
        0.6351489523872873: ("tanh outside: h_t = o ⊙ tanh(c_t), not tanh(o ⊙ c_t)",
                             "tanh 位置错误：h_t = o ⊙ tanh(c_t)，不是 tanh(o ⊙ c_t)"),
        0.48201379003790845: ("used the old cell state: h_t reads the new c_t, not c_prev",
                              "用了旧的细胞状态：h_t 读取新的 c_t，而不是 c_prev"),
    })


@check(points=1.5)
def test_c_t_formula(answers, reference_answers):
    """c_t as a formula in f, c_prev, i, g"""
    answers.formula("c_t_formula", reference_answers["c_t_formula"],
                    symbols={"f": GATE, "c_prev": REAL, "i": GATE, "g": REAL}, mistakes={
        "f*c_prev + (1-f)*g": ("coupled gate: (1 − f) was used where the input gate i belongs",
                               "耦合门：在输入门 i 的位置用了 (1 − f)"),
        "c_prev + i*g": ("the forget gate is missing: the old cell state is scaled by f",
                         "漏掉了遗忘门：旧细胞状态要乘以 f"),
        "f*c_prev*i*g": ("multiplied the two terms: keeping and writing are added, not multiplied",
                         "把两项相乘了：保留与写入是相加关系"),
    })


@check(points=1.5)
def test_h_t_formula(answers, reference_answers):
    """h_t as a formula in o, c_t"""
    answers.formula("h_t_formula", reference_answers["h_t_formula"],
                    symbols={"o": GATE, "c_t": REAL}, mistakes={
        "o*c_t": ("forgot the tanh: h_t = o ⊙ tanh(c_t)", "漏了 tanh：h_t = o ⊙ tanh(c_t)"),
        "tanh(o*c_t)": ("tanh outside: the output gate multiplies tanh(c_t)", "tanh 位置错误：输出门乘的是 tanh(c_t)"),
    })
