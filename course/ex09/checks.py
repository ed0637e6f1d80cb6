"""Hidden checks for ex09: `total_params`, `match_widths`, `macs_per_step` (8 points).

Every answer is an exact integer. total_params is compared with sum(p.numel()) of torch models built
here; match_widths with a brute force over 1..max_width using the reference total_params (ties to
the smaller width); macs_per_step with the reference. Wrong results are recomputed under the known
mistakes so that the feedback names the mistake without printing expected values, or, where none explains them, the
part of the model that is wrong is located. A match_widths that is right for the student's own (wrong) total_params
loses no points, a named miscount or a count of the student's own (OwnCount): that mistake is charged once.
"""

import dataclasses
import fractions
import functools

from grader.checks import Fail, StudentError, call, check, once, reference_module, student_module

matching = student_module("matching")
reference = reference_module("matching")

CELLS = ("rnn", "gru", "lstm")
K = {"rnn": 1, "gru": 3, "lstm": 4}

# -- named mistakes (English, Chinese) --------------------------------------------------------------

ONE_BIAS = (
    "one bias instead of PyTorch's two: nn.RNN/GRU/LSTM keep bias_ih and bias_hh for every block",
    "只算了一个偏置，而 PyTorch 有两个：nn.RNN/GRU/LSTM 的每个块都有 bias_ih 和 bias_hh",
)
NO_RNN_BIAS = ("no recurrent bias: every block of the recurrent layer has bias vectors", "漏了循环层的偏置：循环层的每个块都有偏置向量")
NO_EMBEDDING = (
    "embedding forgotten: the count leaves out the parameters of nn.Embedding(vocab, d_e)",
    "漏了嵌入层：参数量中没有算 nn.Embedding(vocab, d_e) 的参数",
)
NO_HEAD = ("head forgotten: the output layer nn.Linear(d_h, vocab) is part of the model", "漏了输出头：输出层 nn.Linear(d_h, vocab) 也属于模型")
NO_HEAD_BIAS = ("the head's bias forgotten: nn.Linear(d_h, vocab) also has vocab biases", "漏了输出头的偏置：nn.Linear(d_h, vocab) 还有 vocab 个偏置")
CELL_ONLY = (
    "embedding and head forgotten: the total counts the whole model, not only the recurrent layer",
    "漏了嵌入层和输出头：总参数量统计整个模型，而不只是循环层",
)
WRONG_K = ("wrong k per cell: an RNN has 1 block, a GRU 3, an LSTM 4", "块数 k 错误：RNN 有 1 个块，GRU 有 3 个，LSTM 有 4 个")
TIES_LARGER = (
    "ties to the larger width: when two widths are equally close to the target, take the smaller",
    "平局取了较大的宽度：两个宽度与目标同样接近时，应取较小者",
)
RANGE_ZERO = ("off-by-one range: widths run from 1, so 0 is never an answer", "范围差一：宽度从 1 开始，0 不可能是答案")
RANGE_OVER = ("off-by-one range: the largest width is max_width, not max_width + 1", "范围差一：最大宽度是 max_width，而不是 max_width + 1")
RANGE_SHORT = ("off-by-one range: max_width itself is allowed (1..max_width, both included)", "范围差一：max_width 本身也可以取（1..max_width，两端都包含）")
CEILING = (
    "closest means the smallest |total − target|, not the first width at or above the target",
    "“最接近”指 |total − target| 最小，而不是第一个不小于目标的宽度",
)
FLOOR = (
    "closest means the smallest |total − target|, not the last width at or below the target",
    "“最接近”指 |total − target| 最小，而不是最后一个不大于目标的宽度",
)
MACS_EMBEDDING = (
    "macs counting the embedding: the embedding is a table lookup, not a matrix product, so it costs no MACs",
    "乘加量计入了嵌入层：嵌入是查表而不是矩阵乘法，不产生乘加",
)
MACS_NO_HEAD = ("head forgotten: the count leaves out the output layer's MACs, which it costs every step", "漏了输出头：计数中没有算输出层每步都要做的乘加")
MACS_BIASES = ("biases counted as MACs: adding a bias is not a multiply-accumulate", "把偏置算成了乘加：加偏置不是乘加运算")
MACS_NO_RECURRENT = (
    "the recurrent product is missing: each block also multiplies h_{t−1} by a d_h×d_h matrix",
    "漏了循环矩阵乘法：每个块还要用 d_h×d_h 矩阵乘 h_{t−1}",
)
MACS_PARAMS = (
    "parameters counted instead of MACs: count the multiplications of one step, not the weights",
    "统计的是参数量而不是乘加量：应统计一步中的乘加次数，而不是权重个数",
)


def _total(cell, vocab, d_e, d_h, *, k=None, biases=2, embedding=True, head=True, head_bias=True) -> int:
    """The model's parameter count under a (possibly mistaken) reading, for naming mistakes."""
    k = K[cell] if k is None else k
    return (vocab * d_e if embedding else 0) + k * d_h * (d_e + d_h + biases) + (d_h * vocab if head else 0) + (vocab if head and head_bias else 0)


# diagnosis, count(cell, vocab, d_e, d_h) under that mistake (None: does not apply to this cell)
TOTAL_MISTAKES = (
    (ONE_BIAS, lambda c, v, e, h: _total(c, v, e, h, biases=1)),
    (NO_RNN_BIAS, lambda c, v, e, h: _total(c, v, e, h, biases=0)),
    (NO_EMBEDDING, lambda c, v, e, h: _total(c, v, e, h, embedding=False)),
    (NO_HEAD, lambda c, v, e, h: _total(c, v, e, h, head=False)),
    (NO_HEAD_BIAS, lambda c, v, e, h: _total(c, v, e, h, head_bias=False)),
    (CELL_ONLY, lambda c, v, e, h: _total(c, v, e, h, embedding=False, head=False)),
    (CELL_ONLY, lambda c, v, e, h: _total(c, v, e, h, embedding=False, head=False, biases=1)),
    (WRONG_K, lambda c, v, e, h: _total(c, v, e, h, k=3) if c == "lstm" else None),
    (WRONG_K, lambda c, v, e, h: _total(c, v, e, h, k=4) if c == "gru" else None),
    (WRONG_K, lambda c, v, e, h: _total(c, v, e, h, k=2) if c == "gru" else None),
)

WRONG_KS = {"rnn": (), "gru": (4, 2), "lstm": (3,)}  # the wrong block counts the mistakes below use

MACS_MISTAKES = (
    (MACS_EMBEDDING, lambda c, v, e, h: K[c] * h * (e + h) + h * v + v * e),
    (MACS_EMBEDDING, lambda c, v, e, h: K[c] * h * (e + h) + h * v + e),
    (MACS_NO_HEAD, lambda c, v, e, h: K[c] * h * (e + h)),
    (MACS_BIASES, lambda c, v, e, h: K[c] * h * (e + h + 1) + h * v + v),
    (MACS_BIASES, lambda c, v, e, h: K[c] * h * (e + h + 2) + h * v + v),
    (MACS_NO_RECURRENT, lambda c, v, e, h: K[c] * h * e + h * v),
    (MACS_PARAMS, lambda c, v, e, h: _total(c, v, e, h)),
    (MACS_PARAMS, lambda c, v, e, h: K[c] * h * (e + h + 2) + h * v + v),
    (WRONG_K, lambda c, v, e, h: 3 * h * (e + h) + h * v if c == "lstm" else None),
    (WRONG_K, lambda c, v, e, h: 4 * h * (e + h) + h * v if c == "gru" else None),
    (WRONG_K, lambda c, v, e, h: 2 * h * (e + h) + h * v if c == "gru" else None),
)


def likely_mistakes(candidates, observed: list, wrong: list[int], *, least: int = 1) -> list:
    """The diagnoses whose predictions agree with the most observed results, among those explaining at least `least`
    wrong ones.

    candidates: (diagnosis, predictions) pairs, one prediction per case. Scoring every case, not only the
    wrong ones, keeps a mistake that matches one result by chance from being named.
    """
    best, named = 0, []
    for diagnosis, predictions in candidates:
        if sum(predictions[i] == observed[i] for i in wrong) < least:
            continue
        score = sum(is_int(o) and p == o for p, o in zip(predictions, observed))
        if score > best:
            best, named = score, [diagnosis]
        elif score == best and diagnosis not in named:
            named.append(diagnosis)
    return named


def is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def verdict(wrong: int, total: int, lines_en: list[str], lines_zh: list[str], named: list) -> None:
    """Raise the check's Fail: what was wrong, the named mistakes, and partial credit per case."""
    if not wrong:
        return
    if named:
        lines_en.append("Likely mistake: " + "; ".join(d[0] for d in named[:2]))
        lines_zh.append("可能的错误：" + "；".join(d[1] for d in named[:2]))
    raise Fail(". ".join(lines_en) + ".", "。".join(lines_zh) + "。", share=(total - wrong) / total, diagnosis=named[:2])


# Where a count no known mistake explains goes wrong, from how its error changes with each size (the error at a size
# plus one, and at two sizes plus one together): said by the part of the model, never by the right count.
TOTAL_PLACES = {
    "vocab, d_e and d_h": (
        "the error grows with vocab, together with d_e and with d_h: the embedding or the head is miscounted",
        "误差随 vocab 增长，并与 d_e、d_h 都有关：嵌入层或输出头数错了",
    ),
    "vocab and d_e": ("the error grows with vocab and d_e together: the embedding is miscounted", "误差随 vocab 与 d_e 一起增长：嵌入层数错了"),
    "vocab and d_h": ("the error grows with vocab and d_h together: the head's weights are miscounted", "误差随 vocab 与 d_h 一起增长：输出头的权重数错了"),
    "vocab": ("the error grows with vocab alone: the head's bias is miscounted", "误差只随 vocab 增长：输出头的偏置数错了"),
    "d_e": (
        "the error grows with d_e, not with vocab: the recurrent layer's input weights are miscounted",
        "误差随 d_e 而不随 vocab 增长：循环层的输入权重数错了",
    ),
    "d_h squared": ("the error grows faster than d_h: the recurrent weights are miscounted", "误差比 d_h 增长得更快：循环权重数错了"),
    "d_h": (
        "the error does not change with vocab or d_e and grows at most in proportion to d_h: the recurrent layer's biases are miscounted",
        "误差不随 vocab 或 d_e 变化，且至多与 d_h 成正比：循环层的偏置数错了",
    ),
}
MACS_PLACES = {
    "vocab, d_e and d_h": (
        "the error grows with vocab, together with d_e and with d_h: look at the embedding and the head's product",
        "误差随 vocab 增长，并与 d_e、d_h 都有关：检查嵌入层与输出头的乘法",
    ),
    "vocab and d_e": ("the error grows with vocab and d_e together: look at the embedding", "误差随 vocab 与 d_e 一起增长：检查嵌入层"),
    "vocab and d_h": ("the error grows with vocab and d_h together: look at the head's product", "误差随 vocab 与 d_h 一起增长：检查输出头的乘法"),
    "vocab": (
        "the error grows with vocab alone: look at what is counted per output besides the head's product",
        "误差只随 vocab 增长：检查输出头乘法之外按输出计数的部分",
    ),
    "d_e": ("the error grows with d_e, not with vocab: look at the cell's products with the input", "误差随 d_e 而不随 vocab 增长：检查单元与输入的乘法"),
    "d_h squared": ("the error grows faster than d_h: look at the cell's products with h", "误差比 d_h 增长得更快：检查单元与 h 的乘法"),
    "d_h": (
        "the error does not change with vocab or d_e and grows at most in proportion to d_h: look at what is counted per hidden unit besides the products",
        "误差不随 vocab 或 d_e 变化，且至多与 d_h 成正比：检查乘法之外按隐藏单元计数的部分",
    ),
}


def size_location(student_fn, right, args: tuple, places: dict) -> tuple[str, str] | None:
    """Which part of the count for `args` (cell, vocab, d_e, d_h) is wrong (a value of `places`): where its error
    changes with vocab (and with d_e or d_h beside it), with d_e, faster than d_h, or else. None where a count is
    no int or the function fails."""
    cell, vocab, d_e, d_h = args

    def error(dv=0, de=0, dh=0) -> int:
        got = student_fn(cell, vocab + dv, d_e + de, d_h + dh)
        if not is_int(got):
            raise StudentError("not an int")
        return got - right(cell, vocab + dv, d_e + de, d_h + dh)

    try:
        base = error()
        if (slope := error(dv=1) - base) != 0:
            with_d_e, with_d_h = error(dv=1, de=1) - error(de=1) != slope, error(dv=1, dh=1) - error(dh=1) != slope
            if with_d_e and with_d_h:
                return places["vocab, d_e and d_h"]
            return places["vocab and d_e"] if with_d_e else places["vocab and d_h"] if with_d_h else places["vocab"]
        if error(de=1) != base:
            return places["d_e"]
        return places["d_h squared"] if error(dh=2) - 2 * error(dh=1) + base else places["d_h"]
    except StudentError:
        return None


def count_check(student_fn, name: str, cases: list[tuple], expected: list[int], mistakes, excused=None, *, right=None, places=None) -> None:
    """Compare an integer-valued function with `expected` case by case; name the mistakes that fit best, or where no
    known one fits, locate the first wrong count (size_location, against the count `right`, by `places`).

    `excused(args, got)` says whether a wrong result comes from a mistake another check has charged.
    """
    observed = student_fn.many([call(*args) for args in cases])
    wrong = [i for i, (got, want) in enumerate(zip(observed, expected)) if not (is_int(got) and got == want)]
    if excused:
        charged = [i for i in wrong if not (is_int(observed[i]) and excused(cases[i], observed[i]))]
        if wrong and not charged:
            raise Fail(
                f"{name} is right but for the number of blocks k, which the total_params check has charged: no points are lost here",
                f"{name} 除块数 k 外都是对的，而 k 的错误已在 total_params 检查中扣分：此处不扣分",
                share=1.0,
            )
        wrong = charged
    if not wrong:
        return
    en, zh = [], []
    not_int = [i for i in wrong if not is_int(observed[i])]
    if len(not_int) < len(wrong):
        first = next(i for i in wrong if i not in not_int)
        en.append(f"{name} is wrong for {len(wrong) - len(not_int)} of {len(cases)} configurations, e.g. {name}{cases[first]} returned {observed[first]}")
        zh.append(f"{name} 在 {len(cases)} 个配置中有 {len(wrong) - len(not_int)} 个错误，例如 {name}{cases[first]} 返回了 {observed[first]}")
    if not_int:
        en.append(f"{name} must return an int; {name}{cases[not_int[0]]} did not")
        zh.append(f"{name} 必须返回 int；{name}{cases[not_int[0]]} 的返回值不是 int")
    candidates = []
    for diagnosis, count in mistakes:
        predictions = [count(*args) for args in cases]
        candidates.append((diagnosis, [want if p is None else p for p, want in zip(predictions, expected)]))
    miscounted = [i for i in wrong if i not in not_int]
    # a known mistake explains at least half the wrong counts: one that meets a count no known mistake explains by
    # chance (an embedding of vocab·d_h at d_e = d_h + 1 looks like a head without its bias) is not named
    named = likely_mistakes(candidates, observed, miscounted, least=(len(miscounted) + 1) // 2)
    if not named and miscounted and places and (where := size_location(student_fn, right, cases[miscounted[0]], places)):
        en.append(f"Where it goes wrong, for {name}{cases[miscounted[0]]}: {where[0]}")
        zh.append(f"出错之处（{name}{cases[miscounted[0]]}）：{where[1]}")
    verdict(len(wrong), len(cases), en, zh, named)


# -- total_params ---------------------------------------------------------------------------------


@functools.cache  # a constant of the course: built once per grading process, not once per student
def torch_total(cell: str, vocab: int, d_e: int, d_h: int) -> int:
    """sum(p.numel()) of Embedding → RNN/GRU/LSTM → Linear (small sizes, built on the CPU)."""
    from torch import nn

    recurrent = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell]
    model = nn.ModuleList([nn.Embedding(vocab, d_e), recurrent(d_e, d_h), nn.Linear(d_h, vocab)])
    return sum(p.numel() for p in model.parameters())


# (vocab, d_e, d_h): sizes all different, so that swapped sizes show.
TOTAL_SIZES = [(10, 4, 7), (50, 16, 32), (3, 8, 5), (1000, 64, 128), (7, 2, 1)]


@check(points=3)
def test_total_params(matching):
    """total_params equals sum(p.numel()) of Embedding → nn.RNN/GRU/LSTM → Linear (exact)
    total_params 等于 Embedding → nn.RNN/GRU/LSTM → Linear 的 sum(p.numel())（精确）"""
    cases = [(cell, *sizes) for cell in CELLS for sizes in TOTAL_SIZES]
    count_check(matching.total_params, "total_params", cases, [torch_total(*args) for args in cases], TOTAL_MISTAKES, right=_total, places=TOTAL_PLACES)


# -- match_widths ---------------------------------------------------------------------------------


@functools.lru_cache(maxsize=4096)  # the course's counts and the checks' targets, and a student's own count (OwnCount)
def brute_force(total, cell, target, vocab, d_e, max_width, *, widths=None, rule="closest") -> int | None:
    """The width for `target` by trying every width; `rule` and `widths` can reproduce known mistakes."""
    widths = range(1, max_width + 1) if widths is None else widths
    totals = list(zip(widths, _totals(total, cell, vocab, d_e, widths)))
    if rule == "ceiling":
        return next((h for h, t in totals if t >= target), None)
    if rule == "floor":
        return max((h for h, t in totals if t <= target), default=None)
    best = None
    for h, t in totals:
        gap = abs(t - target)
        if best is None or gap < best[0] or (rule == "ties_larger" and gap == best[0]):
            best = (gap, h)
    return best[1]


def _totals(total, cell, vocab, d_e, widths: range) -> tuple:
    """The total for every width tried: a student's own count (OwnCount) computed each time, the course's kept."""
    return tuple(total(cell, vocab, d_e, h) for h in widths) if isinstance(total, OwnCount) else _course_totals(total, cell, vocab, d_e, widths)


@functools.cache
def _course_totals(total, cell, vocab, d_e, widths: range) -> tuple:
    """The total for every width tried; cached for the grading process, as every student and several targets share
    one model (`total` is the reference's count or a known mistake's, both the grader's own code)."""
    return tuple(total(cell, vocab, d_e, h) for h in widths)


@dataclasses.dataclass(frozen=True)
class OwnCount:
    """A student's own total_params for one model (cell, vocab, d_e) that no known mistake is, where it grows with the
    square of d_h as a recurrent layer's count does: square·d_h² + slope·d_h + constant, whole numbers, square ≥ 1 (a
    miscount the total_params check charges). Asked about another model, it gives the right count."""

    cell: str
    vocab: int
    d_e: int
    square: int
    slope: int
    constant: int

    def __call__(self, cell: str, vocab: int, d_e: int, d_h: int) -> int:
        if (cell, vocab, d_e) != (self.cell, self.vocab, self.d_e):
            return _total(cell, vocab, d_e, d_h)
        return self.square * d_h * d_h + self.slope * d_h + self.constant


# diagnosis, brute-force options for a given max_width, and the total it searches (None: the reference's)
SEARCH_MISTAKES = (
    (TIES_LARGER, lambda m: dict(rule="ties_larger"), None),
    (RANGE_ZERO, lambda m: dict(widths=range(0, m + 1)), None),
    (RANGE_OVER, lambda m: dict(widths=range(1, m + 2)), None),
    (RANGE_SHORT, lambda m: dict(widths=range(1, m)), None),
    (CEILING, lambda m: dict(rule="ceiling"), None),
    (FLOOR, lambda m: dict(rule="floor"), None),
    *((diagnosis, lambda m: {}, count) for diagnosis, count in TOTAL_MISTAKES),
)


WHAT_ZH = {"closest widths": "最接近的宽度", "ties": "平局", "range ends": "范围两端"}
PROBE_WIDTHS = (1, 7, 33)
LINE_WIDTHS = (100, 1000)  # beside PROBE_WIDTHS, where a count of the student's own must follow its quadratic too


def own_total(matching, reference, cell: str, vocab: int, d_e: int):
    """The count the student's total_params gives for this model: the reference's, the known mistake it matches on a
    few widths, or its own (OwnCount) where a quadratic in d_h fits it at five widths; the reference's when it is none
    of these or fails. Asked once per submission and model: three checks judge widths with it."""
    return once(matching, f"own total {cell} {vocab} {d_e}", lambda: _own_total(matching, reference, cell, vocab, d_e))


def _own_total(matching, reference, cell: str, vocab: int, d_e: int):
    try:
        probes = matching.total_params.many([call(cell, vocab, d_e, h) for h in PROBE_WIDTHS])
    except StudentError:
        return reference.total_params
    if not all(is_int(p) for p in probes):  # a tensor or float is no count to match (and == on a tensor is no bool)
        return reference.total_params
    for count in (reference.total_params, *(count for _, count in TOTAL_MISTAKES)):
        if count(cell, vocab, d_e, 1) is not None and probes == [count(cell, vocab, d_e, h) for h in PROBE_WIDTHS]:
            return count
    try:
        more = matching.total_params.many([call(cell, vocab, d_e, h) for h in LINE_WIDTHS])
    except StudentError:
        return reference.total_params
    counts = dict(zip(PROBE_WIDTHS + LINE_WIDTHS, probes + more))
    if not all(is_int(p) for p in more):
        return reference.total_params
    (h1, y1), (h2, y2), (h3, y3) = list(counts.items())[:3]
    square = fractions.Fraction(y3 - y1, (h3 - h1) * (h3 - h2)) - fractions.Fraction(y2 - y1, (h2 - h1) * (h3 - h2))
    slope = fractions.Fraction(y2 - y1, h2 - h1) - square * (h1 + h2)
    own = OwnCount(cell, vocab, d_e, int(square), int(slope), int(y1 - square * h1 * h1 - slope * h1))
    whole = square.denominator == slope.denominator == 1 and square >= 1
    return own if whole and all(own(cell, vocab, d_e, h) == y for h, y in counts.items()) else reference.total_params


def closest_calls(reference) -> list[tuple]:
    """The (target, vocab, d_e, kwargs) of the closest-widths check."""
    total = reference.total_params
    return [
        (10_000, 50, 16, {}),  # default cells and max_width
        (123_457, 50, 16, {}),
        # just above one width's total and just below another's: "first above" and "last below" show
        (total("gru", 1000, 64, 300) + 7, 1000, 64, {}),
        (total("rnn", 1000, 64, 500) - 5, 1000, 64, {}),
        (54_321, 50, 16, {"cells": ["gru"], "max_width": 300}),
        (80_000, 30, 12, {"cells": ["lstm", "rnn"], "max_width": 4096}),
    ]


def match_all(matching, calls: list[tuple]) -> list:
    """What match_widths returns for each (target, vocab, d_e, kwargs), the calls sent in one message."""
    return matching.match_widths.many([call(target, vocab, d_e, **kwargs) for target, vocab, d_e, kwargs in calls])


def closest_widths(matching, reference) -> list:
    """match_all for the closest-widths check's calls, once per submission: search_rule reads the same replies."""
    return once(matching, "closest widths", lambda: match_all(matching, closest_calls(reference)))


def search_rule(matching, reference) -> str | None:
    """The known rule that match_widths searches by instead of the closest ("ceiling": the first width at or above
    the target, "floor": the last at or below), if its widths for the closest-widths check's targets follow it
    (with the student's own total_params): that check charges it, so the tie and range checks excuse the widths it
    explains. None when it follows neither, or finds the closest."""
    return once(matching, "search rule", lambda: _search_rule(matching, reference))


def _search_rule(matching, reference) -> str | None:
    entries = []
    try:
        replies = closest_widths(matching, reference)
    except StudentError:
        return None
    for (target, vocab, d_e, kwargs), got in zip(closest_calls(reference), replies):
        if not isinstance(got, dict):
            return None
        for cell in kwargs.get("cells", CELLS):
            total = own_total(matching, reference, cell, vocab, d_e)
            entries.append((got.get(cell), (total, cell, target, vocab, d_e, kwargs.get("max_width", 4096))))
    for rule in ("ceiling", "floor"):
        predicted = [(width, brute_force(*args, rule=rule), brute_force(*args)) for width, args in entries]
        if all(rule_width is None or width == rule_width for width, rule_width, _ in predicted) and any(
            rule_width is not None and rule_width != closest for _, rule_width, closest in predicted
        ):
            return rule
    return None


def widths_check(matching, reference, calls, replies: list, what: str, *, strict_type: bool = False, rule: str | None = None) -> None:
    """Judge what match_widths returned for each (target, vocab, d_e, kwargs) (`replies`): every cell's width against
    the brute force.

    A width is right when it is the brute force's with the reference total_params, or with the student's own
    total_params where that is a known miscount: that mistake is charged by the total_params check alone; or,
    with `rule` (search_rule), the width that rule gives: it is charged by the closest-widths check alone.
    Only with `strict_type` is a float width such as 40.0 wrong, so that this too is charged once.
    """
    entries, en, zh = [], [], []
    for (target, vocab, d_e, kwargs), got in zip(calls, replies):
        cells = kwargs.get("cells", CELLS)
        max_width = kwargs.get("max_width", 4096)
        shown = f"match_widths({target}, {vocab}, {d_e}{''.join(f', {k}={v!r}' for k, v in kwargs.items())})"
        if not isinstance(got, dict) or set(got) != set(cells):
            keys = [str(k)[:20] for k in list(got)[:5]] if isinstance(got, dict) else type(got).__name__
            if not en:
                en.append(f"{shown} must return a dict with exactly the keys {', '.join(cells)}; got {keys}")
                zh.append(f"{shown} 应返回恰好以 {', '.join(cells)} 为键的 dict；实际为 {keys}")
            got = {}
        if not strict_type:
            got = {k: int(v) if isinstance(v, float) and v.is_integer() else v for k, v in got.items()}
        for cell in cells:
            entries.append(
                dict(
                    cell=cell,
                    target=target,
                    vocab=vocab,
                    d_e=d_e,
                    max_width=max_width,
                    shown=shown,
                    width=got.get(cell),
                    total=own_total(matching, reference, cell, vocab, d_e),
                    expected=brute_force(reference.total_params, cell, target, vocab, d_e, max_width),
                )
            )
    observed = [e["width"] for e in entries]
    wrong = [i for i, e in enumerate(entries) if not (is_int(e["width"]) and e["width"] == e["expected"])]
    if not wrong:
        return

    def searched(i: int, total, search: str) -> bool:
        e = entries[i]
        return is_int(observed[i]) and observed[i] == brute_force(total, e["cell"], e["target"], e["vocab"], e["d_e"], e["max_width"], rule=search)

    miscounted = [i for i in wrong if entries[i]["total"] is not reference.total_params and searched(i, entries[i]["total"], "closest")]
    by_rule = [i for i in wrong if rule is not None and i not in miscounted and searched(i, entries[i]["total"], rule)]
    charged = [i for i in wrong if i not in miscounted and i not in by_rule]
    if not charged and by_rule:
        raise Fail(
            f"match_widths's widths here are those of its search rule, which the check on the closest widths charges: no points are lost here ({what})",
            f"match_widths 在此给出的宽度是它的搜索规则所得的宽度，该规则由最接近宽度的检查扣分：此处不扣分（{WHAT_ZH[what]}）",
            share=1.0,
        )
    if not charged:
        raise Fail(
            f"match_widths finds the right widths for your own total_params, which is wrong (see the total_params check): no points are lost here ({what})",
            f"match_widths 对你自己的 total_params 给出了正确的宽度，但 total_params 本身有错（见 total_params 检查）：此处不扣分（{WHAT_ZH[what]}）",
            share=1.0,
        )
    not_int = [i for i in charged if observed[i] is not None and not is_int(observed[i])]
    for i in [i for i in charged if is_int(observed[i])][:2]:
        e = entries[i]
        en.append(f"{e['shown']}[{e['cell']!r}] is {e['width']}, not the closest width (on a tie, the smaller)")
        zh.append(f"{e['shown']}[{e['cell']!r}] 为 {e['width']}，不是最接近的宽度（平局时取较小者）")
    if not_int:
        e = entries[not_int[0]]
        en.append(f"{e['shown']}[{e['cell']!r}] must be an int")
        zh.append(f"{e['shown']}[{e['cell']!r}] 必须是 int")
    candidates = []
    for diagnosis, options, count in SEARCH_MISTAKES:
        predictions = []
        for e in entries:
            if count and count(e["cell"], e["vocab"], e["d_e"], 1) is None:
                predictions.append(e["expected"])
            else:  # search mistakes are judged with the student's own count, miscounts with the reference search
                predictions.append(brute_force(count or e["total"], e["cell"], e["target"], e["vocab"], e["d_e"], e["max_width"], **options(e["max_width"])))
        candidates.append((diagnosis, predictions))
    named = likely_mistakes(candidates, observed, [i for i in charged if is_int(observed[i])])
    verdict(len(charged), len(entries), en, zh, named)


def tie_target(total, cell: str, near: int) -> tuple[int, int, int]:
    """(target, vocab, d_e) with the target exactly halfway between the totals at two consecutive widths
    from `near` on, for the count `total` (the parity of the gap between totals depends on vocab and d_e)."""
    for vocab, d_e in ((12, 5), (13, 5), (12, 6), (13, 6)):
        for width in (near, near + 1):
            low, high = total(cell, vocab, d_e, width), total(cell, vocab, d_e, width + 1)
            if (low + high) % 2 == 0:
                return (low + high) // 2, vocab, d_e
    raise AssertionError(f"no exact tie for {cell} near width {near}")


@check(points=2)
def test_match_widths(matching, reference):
    """match_widths returns, for every cell, the width in 1..max_width whose total is closest to the target
    match_widths 为每种单元返回 1..max_width 中总参数量最接近目标的宽度"""
    widths_check(matching, reference, closest_calls(reference), closest_widths(matching, reference), "closest widths", strict_type=True)


# Widths near which the tie targets lie, and the widths the tie check's calls search: every tie and the widths around
# it, not the 4,096 by default that each cell's brute force in the student process would try (the defaults are the
# closest-widths check's).
TIE_WIDTHS = {"rnn": 40, "gru": 30, "lstm": 25}
TIE_MAX_WIDTH = 64


@check(points=0.5)
def test_tie_rule(matching, reference):
    """Ties go to the smaller width: a target exactly halfway between two widths' totals
    平局取较小的宽度：目标恰好位于两个宽度的总参数量正中间"""
    calls = []
    for cell, near in TIE_WIDTHS.items():
        # a tie for the student's own count, so that a miscounted total (charged elsewhere) still meets a tie
        target, vocab, d_e = tie_target(own_total(matching, reference, cell, 12, 5), cell, near)
        calls.append((target, vocab, d_e, {"cells": [cell], "max_width": TIE_MAX_WIDTH}))
        if cell == "gru":
            calls.append((target, vocab, d_e, {"max_width": TIE_MAX_WIDTH}))  # the default cells, one of them tied
    # no ties: just above one total, and just below a midpoint (where a miscounted total moves the answer)
    calls.append((reference.total_params("lstm", 12, 5, 25) + 1, 12, 5, {"cells": ["lstm"], "max_width": TIE_MAX_WIDTH}))
    target, vocab, d_e = tie_target(reference.total_params, "rnn", 40)
    calls.append((target - 10, vocab, d_e, {"cells": ["rnn"], "max_width": TIE_MAX_WIDTH}))
    rule = search_rule(matching, reference)
    widths_check(matching, reference, calls, match_all(matching, calls), "ties", rule=rule)


@check(points=0.5)
def test_width_range(matching, reference):
    """Widths run from 1 to max_width, both included: targets below and above every total (counts once it searches)
    宽度取 1 到 max_width（两端都含）：目标低于或高于所有总参数量（能搜索后才计分）"""
    inside = [(reference.total_params(cell, 12, 5, 9) + 1, 12, 5, {"cells": [cell], "max_width": 20}) for cell in CELLS]
    rule = search_rule(matching, reference)  # a search by another rule is charged by the check on the closest widths
    try:
        widths_check(matching, reference, inside, match_all(matching, inside), "range ends", rule=rule)
    except Fail as failure:
        if failure.share < 1:
            raise Fail(
                "the range ends count once match_widths finds the closest width for targets inside the range (see the check on the closest widths)",
                "match_widths 对范围内的目标能找到最接近的宽度后，范围两端才计分（见最接近宽度的检查）",
            ) from None
    calls = [(1, 12, 5, {"max_width": 20}), (10**9, 12, 5, {"max_width": 20}), (10**9, 40, 8, {"cells": ["gru"], "max_width": 7})]
    widths_check(matching, reference, calls, match_all(matching, calls), "range ends", rule=rule)


# -- macs_per_step ----------------------------------------------------------------------------------

MACS_SIZES = [(10, 4, 7), (50, 16, 32), (3, 8, 5), (1000, 64, 128)]


@check(points=2)
def test_macs_per_step(matching, reference):
    """macs_per_step counts the cell's and the head's multiply-accumulates, not the embedding lookup (exact)
    macs_per_step 统计循环单元与输出头的乘加次数，不含嵌入查表（精确）"""
    cases = [(cell, *sizes) for cell in CELLS for sizes in MACS_SIZES]

    def same_wrong_k(args, got) -> bool:
        """Whether `got` uses a wrong k that total_params uses too (one mistake, charged there)."""
        cell, vocab, d_e, d_h = args
        totals = [k for k in WRONG_KS[cell] if got == k * d_h * (d_e + d_h) + d_h * vocab]
        if not totals:
            return False
        total = matching.total_params(*args)  # the student's own value: an int, or it excuses nothing
        return is_int(total) and any(total == _total(*args, k=k) for k in totals)

    expected = [reference.macs_per_step(*args) for args in cases]
    count_check(
        matching.macs_per_step, "macs_per_step", cases, expected, MACS_MISTAKES, excused=same_wrong_k, right=reference.macs_per_step, places=MACS_PLACES
    )
