"""Hidden checks for ex03: GRU arithmetic under the two update conventions, on the answer sheet (6 points).

Expected answers come from solutions/ex03_gru_arithmetic/answers.toml. Questions (a) and (b) use
the answer key's (PyTorch's) convention h_t = z·h_prev + (1 − z)·h̃; question (c) uses the textbook's
(definition 2.3.2) h_t = (1 − z)·h_prev + z·h̃. The two use opposite conventions: answering with the
other one is the mistake this exercise names. Known mistakes are recomputed from the question's data.
"""

from grader.checks import Fail, check

Z, H_PREV, CANDIDATE = 0.75, 2.0, -0.4

ANSWER_KEY = Z * H_PREV + (1 - Z) * CANDIDATE  # the convention of (a) and (b)
TEXTBOOK = (1 - Z) * H_PREV + Z * CANDIDATE  # the convention of (c)

SWAPPED = ("swapped GRU convention: this question uses {}, where z is the share of the {}",
           "GRU 约定颠倒：本题采用 {}，其中 z 是{}的比例")
SWAPPED_ANSWER_KEY = (SWAPPED[0].format("the answer key's (PyTorch's) h_t = z·h_prev + (1 − z)·h̃", "old state kept"),
                      SWAPPED[1].format("参考答案（PyTorch）的 h_t = z·h_prev + (1 − z)·h̃", "保留旧状态"))
SWAPPED_TEXTBOOK = (SWAPPED[0].format("the textbook's h_t = (1 − z)·h_prev + z·h̃ (definition 2.3.2)", "candidate written"),
                    SWAPPED[1].format("教材的 h_t = (1 − z)·h_prev + z·h̃（定义 2.3.2）", "写入候选"))
BOTH_SWAPPED = ("swapped GRU convention: both values are right but sit in each other's keys "
                "(h_t, h_t_other_convention); half the points",
                "GRU 约定颠倒：两个数值都算对了，但 h_t 与 h_t_other_convention 互换了位置；得一半分")
SIGN = ("the candidate is negative (h̃ = −0.4); its sign was dropped", "候选为负（h̃ = −0.4）；漏掉了它的符号")
NO_CANDIDATE = ("the candidate term is missing: the new state interpolates between the old state and h̃",
                "漏了候选一项：新状态是旧状态与 h̃ 之间的插值")
SAME_WEIGHT = ("both terms carry the same weight; an interpolation weighs them by z and 1 − z",
               "两项用了相同的权重；插值的两项权重应为 z 与 1 − z")


def convention_value(answers, key: str, expected: float, mistakes: dict, other_key: str, other_expected: float) -> None:
    """A number; when `key` and `other_key` hold each other's right values, half credit for each."""
    try:
        answers.number(key, expected, mistakes=mistakes)
    except Fail:
        if _holds(answers, key, other_expected) and _holds(answers, other_key, expected):
            raise Fail(f"{answers.label}, {key}: {BOTH_SWAPPED[0]}", f"{answers.label}，{key}：{BOTH_SWAPPED[1]}",
                       share=0.5) from None
        raise


def _holds(answers, key: str, value: float) -> bool:
    try:
        answers.number(key, value)
    except Fail:
        return False
    return True


@check(points=2)
def test_h_t(answers, reference_answers):
    """(a) h_t in the answer key's (PyTorch's) convention
    (a) 参考答案（PyTorch）约定下的 h_t"""
    convention_value(answers, "h_t", reference_answers["h_t"], {
        TEXTBOOK: SWAPPED_ANSWER_KEY,
        Z * H_PREV - (1 - Z) * CANDIDATE: SIGN,
        Z * H_PREV: NO_CANDIDATE,
        Z * H_PREV + Z * CANDIDATE: SAME_WEIGHT,
        (1 - Z) * H_PREV + (1 - Z) * CANDIDATE: SAME_WEIGHT,
    }, "h_t_other_convention", reference_answers["h_t_other_convention"])


@check(points=2)
def test_direct_factor(answers, reference_answers):
    """(b) the direct-path derivative ∂h_t/∂h_prev in the answer key's convention
    (b) 参考答案约定下的直接路径导数 ∂h_t/∂h_prev"""
    answers.number("direct_factor", reference_answers["direct_factor"], mistakes={
        1 - Z: ("that is the (1 − z) factor of the textbook's convention; this question uses the answer key's "
                "h_t = z·h_prev + (1 − z)·h̃",
                "这是教材约定下的 (1 − z) 因子；本题采用参考答案的 h_t = z·h_prev + (1 − z)·h̃"),
        ANSWER_KEY / H_PREV: ("divided h_t by h_prev: a ratio of values, not a derivative",
                           "用 h_t 除以了 h_prev：这是数值之比，不是导数"),
        H_PREV - CANDIDATE: ("that is ∂h_t/∂z (old state minus candidate); the derivative with respect to h_prev is asked",
                             "这是 ∂h_t/∂z（旧状态减候选）；本题要的是对 h_prev 的导数"),
        1.0: ("the direct path is scaled by the gate; it is not an identity", "直接路径要乘以门值，并不是恒等传递"),
    })


@check(points=2)
def test_h_t_other_convention(answers, reference_answers):
    """(c) h_t in the textbook's convention
    (c) 教材约定下的 h_t"""
    convention_value(answers, "h_t_other_convention", reference_answers["h_t_other_convention"], {
        ANSWER_KEY: SWAPPED_TEXTBOOK,
        (1 - Z) * H_PREV - Z * CANDIDATE: SIGN,
        (1 - Z) * H_PREV: NO_CANDIDATE,
        Z * H_PREV + Z * CANDIDATE: SAME_WEIGHT,
        (1 - Z) * H_PREV + (1 - Z) * CANDIDATE: SAME_WEIGHT,
    }, "h_t", reference_answers["h_t"])
