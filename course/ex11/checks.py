"""Hidden checks for ex11: the concepts quiz, on the answer sheet (8 points).

Expected answers come from solutions/ex11_concepts/answers.toml. Each wrong answer that matches a
known misconception (textbook §2.3.4, §2.3.5, §2.3.8; lecture 16 and the notes) is named in the feedback.
Every part earns partial credit per item.
"""

import math

from grader.checks import Answers, Fail, check, choices, partial

NUM_STATES = 4  # part B: h_n stacks num_layers × num_directions = 2 × 2 states


def sigma(z: float) -> float:
    return 1.0 / (1.0 + math.exp(-z))


def index(answers, key: str, expected: int, length: int, mistakes: dict) -> None:
    """An index into a dimension of `length`; the negative form of the right index is right too."""
    try:
        answers.integer(key, expected - length)
    except Fail:
        answers.integer(key, expected, mistakes=mistakes)


MISCONCEPTIONS = {
    "tf_gating_cures_vanishing": (
        "gating only mitigates vanishing: the readout o ⊙ tanh′ discounts, the indirect paths through W "
        "remain, and a forget gate below 1 still decays with distance",
        "门控只是缓解梯度消失：读出 o ⊙ tanh′ 会打折，经 W 的间接路径仍在，遗忘门小于 1 时衰减仍随距离累积",
    ),
    "tf_direct_path_no_w": (
        "the direct path is elementwise: c_t depends on c_{t−1} only through f_t ⊙ c_{t−1}; W enters through h_{t−1}, "
        "on the indirect paths (textbook §2.3.2, self-test Q1)",
        "直接路径是逐元素的：c_t 只通过 f_t ⊙ c_{t−1} 依赖 c_{t−1}；W 经由 h_{t−1} 进入，属于间接路径（教材 2.3.2 节、自测 Q1）",
    ),
    "tf_parallel_over_time": (
        "the recurrence is sequential: each state depends on the previous one, so the forward pass and BPTT run "
        "step by step in time; what parallelises is the batch, the features and the input projections of all "
        "steps (one batched matrix product), not the chain of states (textbook §2.3.8)",
        "递推是串行的：每一步的状态依赖上一步，前向与 BPTT 都只能沿时间逐步进行；能并行的是批维、特征维以及所有时间步的"
        "输入投影（一次批量矩阵乘），而不是状态链本身（教材 2.3.8 节）",
    ),
    "tf_h_only_state": (
        "the LSTM state is the pair (h_t, c_t): nn.LSTM returns (h_n, c_n), and c_n is not part of output; both must be carried or checkpointed",
        "LSTM 的状态是一对 (h_t, c_t)：nn.LSTM 返回 (h_n, c_n)，c_n 不在 output 中；传递或保存状态时两者都要带上",
    ),
    "tf_gru_no_cell_state": (
        "the GRU merged the cell state into h: nn.GRU returns only h_n, and the same h_t is read out and carried on (textbook §2.3.3)",
        "GRU 把细胞状态并进了 h：nn.GRU 只返回 h_n，同一个 h_t 既被读出又被传递下去（教材 2.3.3 节）",
    ),
    "tf_bidirectional_generation": (
        "the backward direction needs the whole sequence first; when token t is generated the future does not exist yet, so training would peek at it",
        "后向递推需要先拿到整句；生成第 t 个 token 时未来还不存在，训练时等于偷看了未来",
    ),
    "tf_carry_state_without_detach": (
        "without detach the graph spans batches (memory grows, or backward through the graph a second "
        "time fails); reset the state to zero or carry h.detach() (and c.detach())",
        "不 detach 时计算图会跨 batch 累积（显存增长，或报再次反向同一张图）；应把状态置零，或传递 h.detach()（及 c.detach()）",
    ),
    "tf_forget_bias_slows_decay": (
        "a positive bias starts the forget gate above σ(0) = 0.5, nearer 1, so less of the cell state is lost per step (lecture 16)",
        "正的偏置让遗忘门从高于 σ(0) = 0.5、更接近 1 的值起步，每一步丢掉的细胞状态更少（第 16 讲）",
    ),
}

CONCATENATED = ("h_n and c_n keep the two directions as separate entries; they are not concatenated", "h_n 与 c_n 把两个方向作为不同的条目保存，并不拼接")


def shape_mistakes(p: dict) -> dict:
    """{key: {shape a known mistake gives: its diagnosis}} for part B's sizes `p`."""
    batch, steps, d_h = p["batch"], p["steps"], p["b_d_h"]
    states = {
        (batch, NUM_STATES, d_h): (
            "batch_first does not apply to h_n and c_n: their first dimension is never the batch",
            "batch_first 不作用于 h_n 与 c_n：它们的第一维永远不是批",
        ),
        (2, batch, d_h): ("forgot the directions: the first dimension counts layers × directions", "忘了方向数：第一维是层数 × 方向数"),
        (NUM_STATES, batch, 2 * d_h): CONCATENATED,
        (2, batch, 2 * d_h): CONCATENATED,
        (batch, steps, 2 * d_h): (
            "h_n and c_n hold only the last time step of every layer and direction, not a state per step",
            "h_n 与 c_n 只保存每层每个方向最后一个时间步的状态，并不是每步一个状态",
        ),
    }
    return {
        "output_shape": {
            (batch, steps, d_h): ("forgot that the two directions are concatenated in output's last dimension", "忘了 output 的最后一维拼接了两个方向"),
            (steps, batch, 2 * d_h): ("batch_first=True puts the batch first in output", "batch_first=True 时 output 的第一维是批"),
            (batch, steps, 4 * d_h): ("output holds only the last layer's states, not every layer's", "output 只含最后一层的状态，不含所有层"),
        },
        "h_n_shape": states,
        "c_n_shape": states,
    }


LAST_BACKWARD = (
    "took h_n's last entry for the last layer's forward state; each layer fills more than one entry of h_n: "
    "recall the order in which PyTorch stores layers and directions (lecture 16)",
    "把 h_n 的最后一项当成了最后一层的前向状态；每一层在 h_n 中占不止一项：请回忆 PyTorch 存放层与方向的顺序（第 16 讲）",
)
NOT_GROUPED = ("h_n does not list all forward directions first and then all backward ones", "h_n 并不是先列出所有前向、再列出所有后向")
FIRST_LAYER = ("index 0 belongs to the first layer", "索引 0 属于第一层")
BACKWARD_END = (
    "the backward direction reads the sequence from the end: at the last time step it has seen one input, so its final state sits elsewhere in output",
    "后向方向从序列末尾读起：在最后一个时间步它只看到一个输入，它的最终状态在 output 的另一处",
)

FRAMEWORK_BIASES = (
    "counted two biases per gate block (PyTorch's bias_ih and bias_hh); Q2 counts one",
    "每个门块算了两组偏置（PyTorch 的 bias_ih 与 bias_hh）；Q2 只算一组",
)
NO_BIAS = ("the bias is missing: Q2 counts one bias vector per gate block", "漏了偏置：Q2 中每个门块有一组偏置")
PLAIN_RNN = ("that is the plain RNN's count, one block", "这是朴素 RNN 的参数量（只有一块）")

VARIANTS = {
    "choice_coupled_gates": {
        "A": ("coupling is not a peephole: no gate reads the cell state c here", "耦合门不是 peephole：这里没有门读取细胞状态 c"),
        "C": (
            "coupling keeps no more of the old state: when i is large, f = 1 − i is small and old memory is overwritten",
            "耦合并不会多保留旧状态：i 大时 f = 1 − i 小，旧记忆被覆盖",
        ),
        "D": ("the additive cell path stays: removing the gates' independence is not removing the cell", "加法细胞通道仍在：去掉门的独立性并不等于去掉细胞"),
    },
    "choice_peephole_vs_coupling": {
        "A": ("read the peephole as a constraint that ties the gates down (definition 2.3.3)", "把 peephole 当成了把门绑定住的约束（定义 2.3.3）"),
        "B": ("read coupling as a new path into the forget gate (definition 2.3.3)", "把耦合门当成了通往遗忘门的一条新通路（定义 2.3.3）"),
        "C": (
            "read the peephole as a constraint and coupling as a new path into the forget gate (definition 2.3.3)",
            "把 peephole 当成了约束，又把耦合门当成了通往遗忘门的新通路（定义 2.3.3）",
        ),
    },
    "choice_greff_2015": {
        "B": ("removing peepholes did not hurt noticeably in that comparison", "在那次对照中，去掉 peephole 并没有明显变差"),
        "C": (
            "not every gate could go: removing the forget gate made results clearly worse, unlike most other single changes",
            "并不是哪个门都能去掉：去掉遗忘门会让效果明显变差，这与其他大多数单项改动不同",
        ),
        "D": ("coupled gates did not clearly beat the standard LSTM there", "耦合门在那次对照中并没有明显优于标准 LSTM"),
    },
    "choice_jozefowicz_2015": {
        "A": ("some architectures found did beat the standard LSTM, by small margins", "确实找到了优于标准 LSTM 的架构，只是优势不大"),
        "B": (
            "the bias does matter: it sets where the forget gate starts, and in that search a bias of 1 closed the LSTM's "
            "gap to the GRU (the textbook's own run without it stayed near 0.58)",
            "偏置确实重要：它决定遗忘门从哪里起步；在那次检索中，偏置 1 弥补了 LSTM 与 GRU 之间的差距（教材自己那次不设偏置的运行，门均值只爬到约 0.58）",
        ),
        "D": ("more gates and fancier structure were not supported by the comparisons", "对照结果并不支持门越多、结构越花哨越强"),
    },
}


@check(points=2)
def test_misconceptions(answers, reference_answers):
    """Part A: true or false (textbook §2.3.2, §2.3.3, §2.3.8; lecture 16)
    A 部分：判断正误（教材 2.3.2、2.3.3、2.3.8 节；第 16 讲）"""
    partial([lambda key=key, why=why: answers.boolean(key, reference_answers[key], mistake=why) for key, why in MISCONCEPTIONS.items()])


@check(points=2)
def test_bidirectional_shapes(answers, reference_answers, variant):
    """Part B: shapes and indices of a 2-layer bidirectional batch-first nn.LSTM
    B 部分：2 层双向、batch_first 的 nn.LSTM 的形状与索引"""
    right, wrong, steps = expected(variant), mistakes(variant), variant["steps"]
    partial(
        [
            lambda: answers.shape("output_shape", right["output_shape"], mistakes=wrong["output_shape"]),
            lambda: answers.shape("h_n_shape", right["h_n_shape"], mistakes=wrong["h_n_shape"]),
            lambda: answers.shape("c_n_shape", right["c_n_shape"], mistakes=wrong["c_n_shape"]),
            lambda: index(
                answers,
                "fwd_last_layer_index",
                reference_answers["fwd_last_layer_index"],
                NUM_STATES,
                {3: LAST_BACKWARD, -1: LAST_BACKWARD, 1: NOT_GROUPED, -3: NOT_GROUPED, 0: FIRST_LAYER},
            ),
            lambda: index(answers, "bwd_final_time_index", reference_answers["bwd_final_time_index"], steps, {steps - 1: BACKWARD_END, -1: BACKWARD_END}),
        ]
    )


def expected(p: dict) -> dict:
    """Part B's shapes and part C's counts for the sizes `p` (one bias per gate block in part C)."""
    block = p["d_h"] * (p["d_x"] + p["d_h"] + 1)
    states = [NUM_STATES, p["batch"], p["b_d_h"]]
    return {"output_shape": [p["batch"], p["steps"], 2 * p["b_d_h"]], "h_n_shape": states, "c_n_shape": states, "q2_gru": 3 * block, "q2_lstm": 4 * block}


def mistakes(p: dict) -> dict:
    """{key: {count a known mistake gives: its diagnosis}} for the sizes `p`."""
    d_h, block = p["d_h"], p["d_h"] * (p["d_x"] + p["d_h"] + 1)

    def counts(blocks: int, wrong_blocks: dict) -> dict:
        return {blocks * (block + d_h): FRAMEWORK_BIASES, blocks * (block - d_h): NO_BIAS, block: PLAIN_RNN} | {
            n * block: why for n, why in wrong_blocks.items()
        }

    return {
        **shape_mistakes(p),
        "q2_gru": counts(
            3,
            {
                4: ("a GRU has three gate blocks (z, r, candidate), not four", "GRU 有三个门块（z、r、候选），不是四个"),
                2: ("the candidate is a block too: a GRU has three", "候选也是一个块：GRU 共三个"),
            },
        ),
        "q2_lstm": counts(
            4,
            {
                3: ("an LSTM has four gate blocks (i, f, o, candidate), not three", "LSTM 有四个门块（i、f、o、候选），不是三个"),
            },
        ),
    }


ANSWERS = Answers(expected, mistakes)  # what a student's numbers are answered with (grader.grading.numbers)


@check(points=2)
def test_numbers(answers, reference_answers, variant):
    """Part C: two parameter counts, the GRU/LSTM ratio and σ(1)
    C 部分：两个参数量、GRU/LSTM 之比与 σ(1)"""
    right, wrong = expected(variant), mistakes(variant)
    rnn, gru, lstm = right["q2_gru"] / 3, right["q2_gru"], right["q2_lstm"]
    partial(
        [
            lambda: answers.integer("q2_gru", right["q2_gru"], mistakes=wrong["q2_gru"]),
            lambda: answers.integer("q2_lstm", right["q2_lstm"], mistakes=wrong["q2_lstm"]),
            lambda: answers.number(
                "gru_lstm_ratio",
                reference_answers["gru_lstm_ratio"],
                mistakes={
                    lstm / gru: ("inverted: GRU over LSTM is asked", "比值颠倒了：要的是 GRU 除以 LSTM"),
                    gru / rnn: ("that is GRU over the plain RNN", "这是 GRU 与朴素 RNN 之比"),
                    lstm / rnn: ("that is LSTM over the plain RNN", "这是 LSTM 与朴素 RNN 之比"),
                },
            ),
            lambda: answers.number(
                "sigma_1",
                reference_answers["sigma_1"],
                mistakes={
                    sigma(0): ("that is σ(0), the gate at bias 0", "这是 σ(0)，即偏置为 0 时的门值"),
                    sigma(-1): ("that is σ(−1) = 1/(1 + e): the sign of the exponent is flipped", "这是 σ(−1) = 1/(1 + e)：指数的符号反了"),
                    math.tanh(1): ("that is tanh(1), not the sigmoid", "这是 tanh(1)，不是 sigmoid"),
                    1 / 2 + 1 / 4: ("that is the linear approximation 1/2 + z/4, not σ(1)", "这是线性近似 1/2 + z/4，不是 σ(1)"),
                },
            ),
        ]
    )


@check(points=2)
def test_variants(answers, reference_answers):
    """Part D: coupled gates, peepholes and the two large comparisons (textbook §2.3.4)
    D 部分：耦合门、peephole 与两次大规模对照（教材 2.3.4 节）"""
    choices(answers, reference_answers, VARIANTS)
