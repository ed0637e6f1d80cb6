"""Hidden checks for ex03: GRU arithmetic under the two update conventions, on the answer sheet (6 points).

Expected answers come from solutions/ex03_gru_arithmetic/answers.toml. Questions (a) and (b) use
the answer key's (PyTorch's) convention h_t = z·h_prev + (1 − z)·h̃; question (c) uses the textbook's
(definition 2.3.2) h_t = (1 − z)·h_prev + z·h̃. The two use opposite conventions: answering with the
other one is the mistake this exercise names. The numbers are the student's (`variant`: z, h_prev, candidate
from exercises/ex03_gru_arithmetic/variant.toml); `expected` and `mistakes` compute the answers and the known
mistakes from them. A derivative (b) in the convention that the student's own (a) used follows from that (a): the mix-up is
charged once, at (a).
"""

from grader.checks import Answers, Fail, carried_forward, check

SWAPPED = (
    "swapped GRU convention: that value weighs the old state and the candidate the {} way; this question uses {}",
    "GRU 约定颠倒：这个数值按{}的方式给旧状态与候选加权；本题采用{}",
)
SWAPPED_ANSWER_KEY = (SWAPPED[0].format("textbook's", "the answer key's (PyTorch's) convention"), SWAPPED[1].format("教材", "参考答案（PyTorch）的约定"))
SWAPPED_TEXTBOOK = (
    SWAPPED[0].format("answer key's", "the textbook's convention (definition 2.3.2)"),
    SWAPPED[1].format("参考答案", "教材的约定（定义 2.3.2）"),
)
BOTH_SWAPPED = (
    "swapped GRU convention: the two conventions are mixed up between (a) and (c), one mistake charged "
    "half here and half there; reread which convention each question names and what z is the share of in it",
    "GRU 约定颠倒：(a) 与 (c) 之间把两种约定弄混了，这是一个错误，在这里和那里各扣一半分；请重读每题指定的约定，以及在该约定中 z 是哪一部分的比例",
)
SIGN = ("the candidate is negative; its sign was dropped", "候选为负；漏掉了它的符号")
NO_CANDIDATE = ("the candidate term is missing: the new state interpolates between the old state and h̃", "漏了候选一项：新状态是旧状态与 h̃ 之间的插值")
SAME_WEIGHT = (
    "both terms carry the same weight, so the new state is not an interpolation of the old state and h̃",
    "两项用了相同的权重，所以新状态不是旧状态与 h̃ 之间的插值",
)


def expected(p: dict) -> dict:
    """The answers for the numbers `p`: (a) and (b) in the answer key's convention, (c) in the textbook's."""
    z, h, c = p["z"], p["h_prev"], p["candidate"]
    return {"h_t": z * h + (1 - z) * c, "direct_factor": z, "h_t_other_convention": (1 - z) * h + z * c}


def mistakes(p: dict) -> dict:
    """{key: {value a known mistake gives: its diagnosis}} for the numbers `p`."""
    z, h, c = p["z"], p["h_prev"], p["candidate"]
    right = expected(p)
    same_weight = {z * h + z * c: SAME_WEIGHT, (1 - z) * h + (1 - z) * c: SAME_WEIGHT}
    return {
        "h_t": {right["h_t_other_convention"]: SWAPPED_ANSWER_KEY, z * h - (1 - z) * c: SIGN, z * h: NO_CANDIDATE, **same_weight},
        "direct_factor": {
            1 - z: (
                "that is the (1 − z) factor of the textbook's convention; this question uses the answer key's convention",
                "这是教材约定下的 (1 − z) 因子；本题采用参考答案的约定",
            ),
            right["h_t"] / h: ("divided h_t by h_prev: a ratio of values, not a derivative", "用 h_t 除以了 h_prev：这是数值之比，不是导数"),
            h - c: (
                "that is ∂h_t/∂z (old state minus candidate); the derivative with respect to h_prev is asked",
                "这是 ∂h_t/∂z（旧状态减候选）；本题要的是对 h_prev 的导数",
            ),
            1.0: ("the direct path is scaled by the gate; it is not an identity", "直接路径要乘以门值，并不是恒等传递"),
        },
        "h_t_other_convention": {right["h_t"]: SWAPPED_TEXTBOOK, (1 - z) * h - z * c: SIGN, (1 - z) * h: NO_CANDIDATE, **same_weight},
    }


ANSWERS = Answers(expected, mistakes)  # what a student's numbers are answered with (grader.grading.numbers)


def convention_value(answers, key: str, expected: float, mistakes: dict, other_key: str, other_expected: float) -> None:
    """A number; when `key` and `other_key` hold each other's right values, half credit for each."""
    try:
        answers.number(key, expected, mistakes=mistakes)
    except Fail:
        if _holds(answers, key, other_expected) and _holds(answers, other_key, expected):
            raise Fail(f"{answers.label}, {key}: {BOTH_SWAPPED[0]}", f"{answers.label}，{key}：{BOTH_SWAPPED[1]}", share=0.5, diagnosis=BOTH_SWAPPED) from None
        raise


def _holds(answers, key: str, value: float) -> bool:
    try:
        answers.number(key, value)
    except Fail:
        return False
    return True


@check(points=2)
def test_h_t(answers, variant):
    """(a) h_t in the answer key's (PyTorch's) convention
    (a) 参考答案（PyTorch）约定下的 h_t"""
    right = expected(variant)
    convention_value(answers, "h_t", right["h_t"], mistakes(variant)["h_t"], "h_t_other_convention", right["h_t_other_convention"])


@check(points=2)
def test_direct_factor(answers, variant):
    """(b) the direct-path derivative ∂h_t/∂h_prev in the answer key's convention
    (b) 参考答案约定下的直接路径导数 ∂h_t/∂h_prev"""
    right = expected(variant)
    # answering (a) in the textbook's convention is one mistake: a derivative in that same convention follows from it
    own = (
        [(("h_t's convention", "h_t 所用的约定"), (1 - variant["z"], {}))]
        if not _holds(answers, "h_t", right["h_t"]) and _holds(answers, "h_t", right["h_t_other_convention"])
        else []
    )
    carried_forward(answers, "direct_factor", answers.number, (right["direct_factor"], mistakes(variant)["direct_factor"]), own)


@check(points=2)
def test_h_t_other_convention(answers, variant):
    """(c) h_t in the textbook's convention
    (c) 教材约定下的 h_t"""
    right = expected(variant)
    convention_value(answers, "h_t_other_convention", right["h_t_other_convention"], mistakes(variant)["h_t_other_convention"], "h_t", right["h_t"])
