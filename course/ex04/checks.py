"""Hidden checks for ex04: parameter-count formulas, numbers and `count_params` (10 points).

The sheet's formulas come from solutions/ex04_param_counts/answers.toml, its counts from the student's sizes
(`expected`, `mistakes`); `count_params` is compared with
the reference (one bias per block) and with `sum(p.numel())` of torch modules built here, over grids
of configurations. Wrong results are recomputed under the known mistakes of the course spec so that
the feedback names the mistake without printing the expected count.
"""

import functools

from grader.checks import Answers, Fail, Text, call, carried_forward, check, expect_value_errors, own_formula, reference_module, student_module

params = student_module("params")
reference = reference_module("params")

CELLS = ("rnn", "gru", "lstm")
BLOCKS = {"rnn": 1, "gru": 3, "lstm": 4}
SIZES = {"d_x": "positive_integer", "d_h": "positive_integer"}

# -- named mistakes (English, Chinese) --------------------------------------------------------------

NO_BIAS = ("no bias: every block also has a bias vector of d_h entries", "漏了偏置：每个块还有一个 d_h 维的偏置向量")
LSTM_3 = (
    "LSTM counted as 3 blocks: one of its weight blocks (a gate or the candidate cell state) is left out",
    "把 LSTM 算成了 3 个块：漏掉了其中一个权重块（某个门或候选细胞状态）",
)
GRU_K = ("wrong number of blocks for the GRU: recount its gates and its candidate", "GRU 的块数错误：请重新数一数它的门和候选隐藏状态")
DX_EVERY = (
    "d_x used for every layer: only layer 1 reads the input x; each later layer reads the previous layer's output",
    "每层都用了 d_x：只有第 1 层读取输入 x，之后每层读取上一层的输出",
)
LATER_DH = (
    "later layers read one direction only: with two directions the next layer reads both halves of the previous layer's output",
    "后续层只读取了一个方向：双向时下一层读取上一层两个方向拼接后的输出",
)
NOT_DOUBLED = (
    "bidirectional not doubled: the backward direction has its own parameters, so every layer counts twice",
    "双向没有加倍：反向使用另一套独立参数，每层参数都要算两份",
)
FW_FORGOT = (
    "framework double bias forgotten: PyTorch keeps two bias vectors per block (bias_ih and bias_hh)",
    "忘了框架的双偏置：PyTorch 每个块有两组偏置（bias_ih 和 bias_hh）",
)
TWO_BIAS = (
    "two biases per block counted where the textbook's one is asked; PyTorch's second bias (bias_hh) "
    "counts only with framework_biases=True and for the _torch keys",
    "在只要求每块一个偏置的地方算了两个；PyTorch 的第二组偏置（bias_hh）只在 framework_biases=True 以及以 _torch 结尾的键中计入",
)
LAYERS_IGNORED = ("num_layers ignored: each of the num_layers layers has its own parameters", "忽略了 num_layers：每一层都有自己的参数")
NO_RECURRENT = (
    "the recurrent matrix is missing: each block also has a d_h×d_h matrix acting on h_{t−1}",
    "漏了循环矩阵：每个块还有一个作用于 h_{t−1} 的 d_h×d_h 矩阵",
)
ONE_BIAS_TOTAL = ("one bias vector for the whole cell: each block has its own bias of d_h entries", "整个单元只算了一个偏置向量：每个块都有自己的 d_h 维偏置")
SCALAR_BIAS = ("scalar bias: a bias is a vector of d_h entries, one per hidden unit", "偏置被当作标量：偏置是 d_h 维向量，每个隐藏单元一个")


def _count(
    cell, d_x, d_h, num_layers=1, bidirectional=False, framework_biases=False, *, k=None, biases=None, later_input="D*d_h", doubled=True, extra=0
) -> int:
    """The count under a (possibly mistaken) reading of the rules, for naming mistakes; `extra` bias entries are added
    to every layer and direction (a student's own count of a layer's biases, see own_bias)."""
    k = BLOCKS[cell] if k is None else k
    D = 2 if bidirectional else 1
    b = (2 if framework_biases else 1) if biases is None else biases
    total = 0
    for layer in range(num_layers):
        d_in = d_x if layer == 0 else {"D*d_h": D * d_h, "d_h": d_h, "d_x": d_x}[later_input]
        total += (D if doubled else 1) * (k * d_h * (d_in + d_h + b) + extra)
    return total


# Each mistake: its diagnosis and the count it produces for a configuration (None: does not apply).
MISTAKES = (
    (NO_BIAS, lambda c: _count(**c, biases=0)),
    (LSTM_3, lambda c: _count(**c, k=3) if c["cell"] == "lstm" else None),
    (GRU_K, lambda c: _count(**c, k=4) if c["cell"] == "gru" else None),
    (GRU_K, lambda c: _count(**c, k=2) if c["cell"] == "gru" else None),
    (DX_EVERY, lambda c: _count(**c, later_input="d_x")),
    (LATER_DH, lambda c: _count(**c, later_input="d_h")),
    (NOT_DOUBLED, lambda c: _count(**c, doubled=False)),
    (NOT_DOUBLED, lambda c: _count(**(c | {"bidirectional": False}))),
    (FW_FORGOT, lambda c: _count(**c, biases=1) if c.get("framework_biases") else None),
    (TWO_BIAS, lambda c: _count(**c, biases=2) if not c.get("framework_biases") else None),
    (LAYERS_IGNORED, lambda c: _count(**(c | {"num_layers": 1}))),
)


def mistaken_counts(config: dict, expected: int) -> dict:
    """{count: diagnosis} for every known mistake of this kind of configuration (two that give the same count are both
    named). One that gives the right count at these sizes only is kept, so that `grade check` and the tests show the
    sizes where it would cost nothing; one that never changes such a count (not doubled, in one direction) is not."""
    found = {}
    for diagnosis, count in MISTAKES:
        value = count(config)
        if value is None or (value == expected and not changes_a_count(count, config)):
            continue
        if value in found and diagnosis[0] not in found[value][0]:  # two mistakes give this count here: name both
            found[value] = (f"{found[value][0]}; or {diagnosis[0]}", f"{found[value][1]}；或{diagnosis[1]}")
        else:
            found.setdefault(value, diagnosis)
    return found


def changes_a_count(count, config: dict) -> bool:
    """Whether the mistaken `count` differs from the right one at this configuration or at d_x + 1 or d_h + 1."""
    near = (config, config | {"d_x": config["d_x"] + 1}, config | {"d_h": config["d_h"] + 1})
    return any(count(c) != _count(**c) for c in near)


# The known mistakes of each cell's formula N_rnn, N_gru, N_lstm.
FORMULA_MISTAKES = {
    "rnn": {
        "d_h*(d_x + d_h)": NO_BIAS,
        "d_h*(d_x + 1)": NO_RECURRENT,
        "d_h*d_x": NO_RECURRENT,
        "d_h*(d_x + d_h + 2)": TWO_BIAS,
        "d_h*(d_x + d_h) + 1": SCALAR_BIAS,
    },
    "gru": {
        "3*d_h*(d_x + d_h)": NO_BIAS,
        "4*d_h*(d_x + d_h + 1)": GRU_K,
        "2*d_h*(d_x + d_h + 1)": GRU_K,
        "3*d_h*(d_x + 1)": NO_RECURRENT,
        "3*d_h*(d_x + d_h + 2)": TWO_BIAS,
        "3*d_h*(d_x + d_h) + d_h": ONE_BIAS_TOTAL,
        "3*d_h*(d_x + d_h) + 3": SCALAR_BIAS,
    },
    "lstm": {
        "4*d_h*(d_x + d_h)": NO_BIAS,
        "3*d_h*(d_x + d_h + 1)": LSTM_3,
        "4*d_h*(d_x + 1)": NO_RECURRENT,
        "4*d_h*(d_x + d_h + 2)": TWO_BIAS,
        "4*d_h*(d_x + d_h) + d_h": ONE_BIAS_TOTAL,
        "4*d_h*(d_x + d_h) + 4": SCALAR_BIAS,
    },
}


# -- the answer sheet ---------------------------------------------------------------------------------


@check(points=1)
def test_N_rnn(answers, reference_answers):
    """N_rnn: parameters of a plain RNN cell as a formula in d_x, d_h (one bias per block)
    N_rnn：朴素 RNN 单元的参数量，用 d_x、d_h 表示的公式（每块一组偏置）"""
    answers.formula("N_rnn", reference_answers["N_rnn"], SIZES, mistakes=FORMULA_MISTAKES["rnn"])


@check(points=1)
def test_N_gru(answers, reference_answers):
    """N_gru: parameters of a GRU cell as a formula in d_x, d_h (one bias per block)
    N_gru：GRU 单元的参数量，用 d_x、d_h 表示的公式（每块一组偏置）"""
    answers.formula("N_gru", reference_answers["N_gru"], SIZES, mistakes=FORMULA_MISTAKES["gru"])


@check(points=1)
def test_N_lstm(answers, reference_answers):
    """N_lstm: parameters of an LSTM cell as a formula in d_x, d_h (one bias per block)
    N_lstm：LSTM 单元的参数量，用 d_x、d_h 表示的公式（每块一组偏置）"""
    answers.formula("N_lstm", reference_answers["N_lstm"], SIZES, mistakes=FORMULA_MISTAKES["lstm"])


# The configuration each numeric key asks about, from the student's sizes (`variant`, declared in
# exercises/ex04_param_counts/variant.toml); its count and its mistakes are computed from it.
def items(p: dict) -> dict:
    return {
        "gru_count": dict(cell="gru", d_x=p["gru_d_x"], d_h=p["gru_d_h"]),
        "lstm_count": dict(cell="lstm", d_x=p["lstm_d_x"], d_h=p["lstm_d_h"]),
        "lstm_count_torch": dict(cell="lstm", d_x=p["lstm_d_x"], d_h=p["lstm_d_h"], framework_biases=True),
        "grucell_count_torch": dict(cell="gru", d_x=p["cell_d_x"], d_h=p["cell_d_h"], framework_biases=True),
        "lstm_stack_count_torch": dict(cell="lstm", d_x=p["stack_d_x"], d_h=p["stack_d_h"], num_layers=2, bidirectional=True, framework_biases=True),
    }


def expected(p: dict) -> dict:
    """The sheet's counts for the sizes `p` (PyTorch's own count where the key ends in _torch)."""
    return {key: _count(**config) for key, config in items(p).items()}


def mistakes(p: dict) -> dict:
    """{key: {count a known mistake gives: its diagnosis}} for the sizes `p`."""
    right = expected(p)
    return {key: mistaken_counts(config, right[key]) for key, config in items(p).items()}


ANSWERS = Answers(expected, mistakes)  # what a student's numbers are answered with (grader.grading.numbers)


def _item(answers, variant, reference_answers, key):
    """A count; one that follows from the student's own (named) wrong formula for its cell is not charged again."""
    config = items(variant)[key]
    formula_key = f"N_{config['cell']}"
    formula = own_formula(answers, formula_key, reference_answers[formula_key], SIZES, FORMULA_MISTAKES[config["cell"]])
    own = []
    if formula and not config.get("framework_biases"):
        value = formula({"d_x": config["d_x"], "d_h": config["d_h"]})
        own = [(formula_key, (value, {}))] if value is not None else []
    elif formula:  # PyTorch's count under a block mistake that the student's formula shows (their blocks, two biases)
        single = {k: config[k] for k in ("cell", "d_x", "d_h")}
        own = [
            (formula_key, (count(config), {}))
            for diagnosis, count in MISTAKES
            if diagnosis in BLOCK_MISTAKES
            and count(single) is not None
            and all(
                formula({"d_x": d_x, "d_h": d_h}) == count(single | {"d_x": d_x, "d_h": d_h})
                for d_x, d_h in ((single["d_x"], single["d_h"]), (single["d_x"] + 1, single["d_h"] + 2))
            )
        ]
    carried_forward(answers, key, answers.integer, (expected(variant)[key], mistakes(variant)[key]), own)


@check(points=0.4)
def test_gru_count(answers, variant, reference_answers):
    """gru_count: one GRU cell, one bias per block
    gru_count：一个 GRU 单元，每块一组偏置"""
    _item(answers, variant, reference_answers, "gru_count")


@check(points=0.4)
def test_lstm_count(answers, variant, reference_answers):
    """lstm_count: one LSTM cell, one bias per block (as in example 2.3.1)
    lstm_count：一个 LSTM 单元，每块一组偏置（同例 2.3.1）"""
    _item(answers, variant, reference_answers, "lstm_count")


@check(points=0.4)
def test_lstm_count_torch(answers, variant, reference_answers):
    """lstm_count_torch: parameters of that nn.LSTM
    lstm_count_torch：该 nn.LSTM 的参数量"""
    _item(answers, variant, reference_answers, "lstm_count_torch")


@check(points=0.4)
def test_grucell_count_torch(answers, variant, reference_answers):
    """grucell_count_torch: parameters of an nn.GRUCell
    grucell_count_torch：一个 nn.GRUCell 的参数量"""
    _item(answers, variant, reference_answers, "grucell_count_torch")


@check(points=0.4)
def test_lstm_stack_count_torch(answers, variant, reference_answers):
    """lstm_stack_count_torch: parameters of a two-layer bidirectional nn.LSTM
    lstm_stack_count_torch：两层双向 nn.LSTM 的参数量"""
    _item(answers, variant, reference_answers, "lstm_stack_count_torch")


# -- count_params -------------------------------------------------------------------------------------


def torch_count(config: dict) -> int:
    """sum(p.numel()) of the torch module for this configuration (small sizes, built on the CPU)."""
    return _torch_count(config["cell"], config["d_x"], config["d_h"], config.get("num_layers", 1), config.get("bidirectional", False))


@functools.cache  # a constant of the course: built once per grading process, not once per student
def _torch_count(cell: str, d_x: int, d_h: int, layers: int, bidirectional: bool) -> int:
    from torch import nn

    if layers == 1 and not bidirectional:
        module = {"rnn": nn.RNNCell, "gru": nn.GRUCell, "lstm": nn.LSTMCell}[cell](d_x, d_h)
    else:
        module = {"rnn": nn.RNN, "gru": nn.GRU, "lstm": nn.LSTM}[cell](d_x, d_h, num_layers=layers, bidirectional=bidirectional)
    return sum(p.numel() for p in module.parameters())


def call_of(config: dict):
    """The call of count_params for this configuration."""
    return call(config["cell"], config["d_x"], config["d_h"], **{k: v for k, v in config.items() if k not in ("cell", "d_x", "d_h")})


def call_text(config: dict) -> str:
    """The call as the student would write it, for feedback."""
    options = "".join(f", {k}={v}" for k, v in config.items() if k not in ("cell", "d_x", "d_h"))
    return f"count_params({config['cell']!r}, {config['d_x']}, {config['d_h']}{options})"


# Mistakes charged by the single-layer checks; later checks do not charge them again.
BLOCK_MISTAKES = (NO_BIAS, LSTM_3, GRU_K)
PER_LAYER = (*BLOCK_MISTAKES, FW_FORGOT, TWO_BIAS)
# Mistakes in stacking layers, charged by the stacked check; the bidirectional check does not charge them again.
PER_STACK = (DX_EVERY, LAYERS_IGNORED)
# Mistakes in combining layers and directions, which later checks also name and excuse on top of OWN_BIAS.
COMBINING = (DX_EVERY, LATER_DH, NOT_DOUBLED, LAYERS_IGNORED)
# A layer's biases counted wrong in a way no named mistake is (one bias for the whole cell, say): not a diagnosis
# (feedback cannot name it), a mistake the single-layer checks charge and later checks excuse (see own_bias).
OWN_BIAS = ("a layer's biases miscounted", "一层的偏置数错了")


WHAT_ZH = {"single-layer": "单层", "single-layer framework": "单层框架", "stacked": "多层", "bidirectional": "双向"}


def student_count(params, probe: dict, probes: dict):
    """The student's count_params for this configuration, asked once per check (`probes` keeps the answers)."""
    key = tuple(probe.items())
    if key not in probes:
        options = {k: v for k, v in probe.items() if k not in ("cell", "d_x", "d_h")}
        probes[key] = params.count_params(probe["cell"], probe["d_x"], probe["d_h"], **options)
    return probes[key]


def bias_error(params, cell: str, d_h: int, framework: bool, d_ins, probes: dict) -> int | None:
    """How many entries the student's count of one layer (one direction) of this cell and bias convention has beyond
    the right count, negative for fewer: the same at every input size of `d_ins` (its weights counted right, its biases
    not). None where the error depends on the input size, or a count is no int."""
    errors = set()
    for d_in in d_ins:
        probe = {"cell": cell, "d_x": d_in, "d_h": d_h} | ({"framework_biases": True} if framework else {})
        got = student_count(params, probe, probes)
        if type(got) is not int:
            return None
        errors.add(got - _count(**probe))
    return errors.pop() if len(errors) == 1 else None


def own_bias(params, config: dict, probes: dict) -> int | None:
    """The student's own count of a layer's biases for this configuration's cell, d_h and bias convention, as its
    error (bias_error) where that is not 0, the same for every input size a layer of the configuration reads, and shows
    in the single-layer check of that convention too, which charges it. None otherwise (a count that only happens to
    match, such as a constant's, is not excused)."""
    framework = bool(config.get("framework_biases"))
    d_x, d_h = config["d_x"], config["d_h"]
    directions = 2 if config.get("bidirectional") else 1
    error = bias_error(params, config["cell"], d_h, framework, sorted({d_x, d_x + 1, d_h, directions * d_h}), probes)
    if not error:
        return None
    charging = [
        {"cell": config["cell"], "d_x": x, "d_h": h} | ({"framework_biases": True} if framework else {})
        for x, h in (FRAMEWORK_SIZES if framework else SINGLE_SIZES)
    ]
    return error if any(student_count(params, probe, probes) != _count(**probe) for probe in charging) else None


def charged_elsewhere(params, config: dict, got: int, excused, probes: dict) -> tuple | None:
    """The excused mistake under which `got` is this configuration's count and that the student's counts of the
    check charging it show too, at these sizes and at d_x + 1: one layer for a mistake in a layer's count, the
    same stack in one direction for a mistake in stacking (so that check has charged it already; a count that
    only happens to match, such as a constant, is not excused). OWN_BIAS where the student's own count of a layer's
    biases (own_bias) explains it: a stack of such layers, also combined by an excused stacking mistake; PyTorch's
    count of one layer as that count plus k·d_h, or with its biases doubled. None when there is none."""
    for diagnosis, count in MISTAKES:
        if diagnosis not in excused or count(config) != got:
            continue
        if diagnosis in PER_STACK:
            witness = {k: v for k, v in config.items() if k != "bidirectional"}
        else:
            witness = {k: config[k] for k in ("cell", "d_x", "d_h")} | ({"framework_biases": True} if diagnosis == FW_FORGOT else {})
        if all(shows(params, count, probe, probes) for probe in (witness, witness | {"d_x": witness["d_x"] + 1})):
            return diagnosis
    if OWN_BIAS not in excused:
        return None
    if config.get("num_layers", 1) == 1 and not config.get("bidirectional"):  # one layer, PyTorch's biases
        error = own_bias(params, {k: config[k] for k in ("cell", "d_x", "d_h")}, probes)
        framework = bias_error(params, config["cell"], config["d_h"], True, (config["d_x"], config["d_x"] + 1), probes)
        return OWN_BIAS if error and framework in (error, 2 * error) else None
    extra = own_bias(params, config, probes)
    if extra is None:
        return None
    if got == _count(**config, extra=extra):
        return OWN_BIAS
    for diagnosis, count in MISTAKES:
        if diagnosis in PER_STACK and diagnosis in excused and count(config | {"extra": extra}) == got:
            witness = {k: v for k, v in config.items() if k != "bidirectional"}
            if all(shows(params, count, probe, probes, extra=extra) for probe in (witness, witness | {"d_x": witness["d_x"] + 1})):
                return diagnosis
    return None


def shows(params, count, probe: dict, probes: dict, *, extra: int = 0) -> bool:
    """Whether the student's count for this configuration is the mistaken `count`, not the right one (with `extra`:
    both on top of the student's own count of a layer's biases)."""
    prediction = count(probe | {"extra": extra})
    got = student_count(params, probe, probes)
    return prediction is not None and prediction != _count(**probe, extra=extra) and type(got) is int and got == prediction


def grid_check(params, configs: list[dict], expected, what: str, *, excused=(), strict_type=False) -> None:
    """Compare count_params with `expected(config)` on every configuration; partial credit per configuration.

    A count that is wrong only by a mistake in `excused` (charged by another check) costs nothing here;
    only with `strict_type` does a float such as 36.0 count as wrong (so that this too is charged once).
    """
    returned = params.count_params.many([call_of(config) for config in configs])
    observed = [int(got) if not strict_type and isinstance(got, float) and got.is_integer() else got for got in returned]
    targets = [expected(config) for config in configs]
    is_int = [isinstance(got, int) and not isinstance(got, bool) for got in observed]
    wrong = [i for i, (got, target) in enumerate(zip(observed, targets)) if not (is_int[i] and got == target)]
    probes, extras = {}, {}
    if excused:
        charged = set()
        for i in list(wrong):
            if is_int[i] and (diagnosis := charged_elsewhere(params, configs[i], observed[i], excused, probes)):
                wrong.remove(i)
                charged.add(diagnosis)
        if not wrong and charged:
            layer, stack = charged - set(PER_STACK), charged & set(PER_STACK)
            en = " and of ".join([*(["one layer"] if layer else []), *(["a stack"] if stack else [])])
            see = " and ".join([*(["the single-layer checks"] if layer else []), *(["the stacked check"] if stack else [])])
            zh = "与".join([*(["单层参数量"] if layer else []), *(["多层堆叠参数量"] if stack else [])])
            see_zh = "、".join([*(["单层检查"] if layer else []), *(["多层检查"] if stack else [])])
            raise Fail(
                f"the {what} counts are right but for a mistake in the count of {en} (see {see}): no points are lost here",
                f"{WHAT_ZH[what]}配置的结果除{zh}中的错误外都是对的（见{see_zh}）：此处不扣分",
                share=1.0,
            )
        if OWN_BIAS in excused:  # a stacking mistake on top of the student's own count of a layer's biases is named too
            stacks = [i for i in wrong if is_int[i] and (configs[i].get("num_layers", 1) > 1 or configs[i].get("bidirectional"))]
            extras = {i: own_bias(params, configs[i], probes) or 0 for i in stacks}
    if not wrong:
        return
    en, zh = [], []
    miscounted = [i for i in wrong if is_int[i]]
    if miscounted:
        i = miscounted[0]
        en.append(f"count_params is wrong for {len(miscounted)} of {len(configs)} {what} configurations, e.g. {call_text(configs[i])} returned {observed[i]}")
        zh.append(f"count_params 在 {len(configs)} 个{WHAT_ZH[what]}配置中有 {len(miscounted)} 个错误，例如 {call_text(configs[i])} 返回了 {observed[i]}")
    if len(miscounted) < len(wrong):
        i = next(i for i in wrong if not is_int[i])
        en.append(f"count_params must return an int; {call_text(configs[i])} did not")
        zh.append(f"count_params 必须返回 int；{call_text(configs[i])} 的返回值不是 int")
    named = likely_mistakes(configs, targets, observed, is_int, miscounted, extras)
    if named:
        en.append("Likely mistake: " + "; ".join(d[0] for d in named[:2]))
        zh.append("可能的错误：" + "；".join(d[1] for d in named[:2]))
    elif miscounted and configs[miscounted[0]].get("num_layers", 1) == 1 and not configs[miscounted[0]].get("bidirectional"):
        where = layer_location(params, configs[miscounted[0]], probes)
        if where:
            en.append(f"Where it goes wrong, for {configs[miscounted[0]]['cell']}: {where[0]}")
            zh.append(f"出错之处（{configs[miscounted[0]]['cell']}）：{where[1]}")
    raise Fail(". ".join(en) + ".", "。".join(zh) + "。", share=(len(configs) - len(wrong)) / len(configs), diagnosis=named[:2])


# Where a count of one layer that no named mistake explains goes wrong, from how its error changes with the sizes:
# without the right count or its formula.
LOCATIONS = {
    "d_x": (
        "the count changes wrongly with d_x: the input projections (or the number of blocks) are miscounted",
        "参数量随 d_x 的变化不对：输入投影（或块数）数错了",
    ),
    "d_h": (
        "the count changes rightly with d_x but wrongly with d_h: the recurrent projections are miscounted",
        "参数量随 d_x 的变化正确，随 d_h 的变化不对：循环投影数错了",
    ),
    "biases": (
        "its weights are counted right, its biases are not: the count is off by an amount that does not change with d_x and grows at most in proportion to d_h",
        "权重数对了，偏置数错了：参数量的偏差不随 d_x 变化，且至多与 d_h 成正比",
    ),
}


def layer_location(params, config: dict, probes: dict) -> tuple[str, str] | None:
    """Which part of one layer's count is wrong (LOCATIONS), from the student's counts of this cell and bias convention
    at d_x + 1 and at d_h + 1, d_h + 2: an error that changes with d_x is in the input projections, one that grows faster
    than d_h in the recurrent ones, else in the biases. None where a count is no int."""
    cell, d_x, d_h = config["cell"], config["d_x"], config["d_h"]
    framework = {"framework_biases": True} if config.get("framework_biases") else {}
    errors = {}
    for x, h in ((d_x, d_h), (d_x + 1, d_h), (d_x, d_h + 1), (d_x, d_h + 2)):
        probe = {"cell": cell, "d_x": x, "d_h": h} | framework
        got = student_count(params, probe, probes)
        if type(got) is not int:
            return None
        errors[x, h] = got - _count(**probe)
    if errors[d_x + 1, d_h] != errors[d_x, d_h]:
        return LOCATIONS["d_x"]
    if errors[d_x, d_h + 2] - 2 * errors[d_x, d_h + 1] + errors[d_x, d_h]:
        return LOCATIONS["d_h"]
    return LOCATIONS["biases"]


def likely_mistakes(configs, targets, observed, is_int, miscounted, extras: dict) -> list:
    """The known mistakes that reproduce the most results (all configurations scored, not only the wrong ones,
    so that a mistake matching one result by chance is not named); each must reproduce at least half the wrong results
    (layer 1 read as 2·d_x when bidirectional meets "two biases per block" where d_x equals num_layers). A mistake in
    combining layers and directions is predicted on top of the student's own count of a layer's biases, where
    `extras` holds one (configuration index: own_bias)."""
    best, named = 0, []
    for diagnosis, count in MISTAKES:
        predictions = [
            target if (value := count(config | {"extra": extras.get(i, 0) if diagnosis in COMBINING else 0})) is None else value
            for i, (config, target) in enumerate(zip(configs, targets))
        ]
        if 2 * sum(predictions[i] == observed[i] for i in miscounted) < len(miscounted):
            continue
        score = sum(ok and p == o for p, o, ok in zip(predictions, observed, is_int))
        if score > best:
            best, named = score, [diagnosis]
        elif score == best and diagnosis not in named:
            named.append(diagnosis)
    return named


def _configs(sizes, layers=(1,), bidirectional=(False,), framework=(False,)) -> list[dict]:
    configs = []
    for cell in CELLS:
        for d_x, d_h in sizes:
            for n in layers:
                for bi in bidirectional:
                    for fw in framework:
                        config = dict(cell=cell, d_x=d_x, d_h=d_h)
                        if n != 1:
                            config["num_layers"] = n
                        if bi:
                            config["bidirectional"] = True
                        if fw:
                            config["framework_biases"] = True
                        configs.append(config)
    return configs


def textbook_or_torch(reference):
    """Expected count: the reference for one bias per block, torch itself for framework biases."""

    def expected(config: dict) -> int:
        if config.get("framework_biases"):
            return torch_count(config)
        return reference.count_params(config["cell"], config["d_x"], config["d_h"], **{k: v for k, v in config.items() if k not in ("cell", "d_x", "d_h")})

    return expected


# d_x ≠ d_h everywhere, d_x both below and above d_h, so that swapped or reused sizes show.
SINGLE_SIZES = [(5, 4), (32, 128), (3, 5), (64, 256), (7, 2)]
FRAMEWORK_SIZES = [(5, 4), (32, 128), (3, 5), (10, 20)]
STACK_SIZES = [(3, 5), (10, 20), (40, 6)]


@check(points=1.5)
def test_single_layer_textbook(params, reference):
    """count_params for one layer, one bias per block, matches the formulas (d_x ≠ d_h)
    单层、每块一组偏置时 count_params 与公式一致（d_x ≠ d_h）"""
    configs = _configs(SINGLE_SIZES)
    grid_check(params, configs, textbook_or_torch(reference), "single-layer", strict_type=True)


@check(points=1)
def test_single_layer_framework(params, reference):
    """count_params(..., framework_biases=True) equals sum(p.numel()) of nn.RNNCell / nn.GRUCell / nn.LSTMCell
    count_params(..., framework_biases=True) 等于 nn.RNNCell / nn.GRUCell / nn.LSTMCell 的 sum(p.numel())"""
    configs = _configs(FRAMEWORK_SIZES, framework=(True,))
    grid_check(params, configs, textbook_or_torch(reference), "single-layer framework", excused=(*BLOCK_MISTAKES, OWN_BIAS))


@check(points=1)
def test_stacked_layers(params, reference):
    """Stacked layers: layer 1 reads d_x, later layers d_h; equals nn.RNN/GRU/LSTM(num_layers=2, 3)
    多层堆叠：第 1 层读入 d_x，之后各层读入 d_h；等于 nn.RNN/GRU/LSTM(num_layers=2, 3)"""
    configs = _configs(STACK_SIZES, layers=(2, 3), framework=(False, True))
    grid_check(params, configs, textbook_or_torch(reference), "stacked", excused=(*PER_LAYER, OWN_BIAS))


@check(points=1)
def test_bidirectional(params, reference):
    """Bidirectional stacks: two directions, later layers read 2·d_h; equals nn.*(bidirectional=True)
    双向堆叠：两个方向，之后各层读入 2·d_h；等于 nn.*(bidirectional=True)"""
    configs = _configs(STACK_SIZES, layers=(1, 2, 3), bidirectional=(True,), framework=(False, True))
    grid_check(params, configs, textbook_or_torch(reference), "bidirectional", excused=(*PER_LAYER, *PER_STACK, OWN_BIAS))


BAD_CALLS = (
    (Text("an unknown cell 'cnn'", "未知的单元 'cnn'"), ("cnn", 3, 5), {}),
    (Text("an unknown cell 'transformer'", "未知的单元 'transformer'"), ("transformer", 3, 5), {"framework_biases": True}),
    ("d_x = 0", ("lstm", 0, 5), {}),
    ("d_h = -2", ("gru", 3, -2), {}),
    ("num_layers = 0", ("rnn", 3, 5), {"num_layers": 0}),
)


def counts(params, reference) -> bool:
    """Whether count_params computes counts for some cell: at two sizes, the reference's or one known mistake's, or its
    weights counted right at every input size and only its biases wrong (own_bias: charged by the single-layer check)."""
    for cell in CELLS:
        configs = [dict(cell=cell, d_x=5, d_h=4), dict(cell=cell, d_x=7, d_h=2)]
        got = params.count_params.many([call_of(c) for c in configs])
        if not all(type(g) in (int, float) for g in got):
            continue
        rules = [lambda c: reference.count_params(**c)] + [count for _, count in MISTAKES]
        if any(all(rule(c) == g for c, g in zip(configs, got)) for rule in rules if rule(configs[0]) is not None):
            return True
        if all(bias_error(params, cell, c["d_h"], False, (c["d_x"], c["d_x"] + 1), {}) is not None for c in configs):
            return True
    return False


@check(points=0.5)
def test_value_errors(params, reference):
    """An unknown cell or a non-positive size raises ValueError (counts once count_params counts)
    未知的单元或非正的尺寸抛出 ValueError（count_params 计数正确后才计分）"""
    if not counts(params, reference):
        raise Fail(
            "count_params's ValueError cases count once it computes counts (see the single-layer check)",
            "count_params 能计算参数量后，它的 ValueError 情况才计分（见单层检查）",
        )
    expect_value_errors({case: lambda args=args, kwargs=kwargs: params.count_params(*args, **kwargs) for case, args, kwargs in BAD_CALLS}, fn="count_params")
