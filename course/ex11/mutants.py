"""ex11's known misconceptions on the answer sheet, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, reference, with_answers

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = bank(
    "ex11",
    "answers.toml",
    {
        "gating cures vanishing": ("tf_gating_cures_vanishing = false", "tf_gating_cures_vanishing = true", "only mitigates"),
        "parallel over time": ("tf_parallel_over_time = false", 'tf_parallel_over_time = "TRUE"', "the input projections of all steps"),
        "h is the only state": ("tf_h_only_state = false", "tf_h_only_state = true", "(h_t, c_t)"),
        "bidirectional generation": ("tf_bidirectional_generation = false", "tf_bidirectional_generation = true", "whole sequence"),
        "state carried without detach": ("tf_carry_state_without_detach = false", "tf_carry_state_without_detach = true", "detach()"),
        "W on the direct path": ("tf_direct_path_no_w = true", "tf_direct_path_no_w = false", "the direct path is elementwise"),
        "GRU with a cell state": ("tf_gru_no_cell_state = true", 'tf_gru_no_cell_state = "False"', "merged the cell state into h"),
        "forget bias without effect": ("tf_forget_bias_slows_decay = true", "tf_forget_bias_slows_decay = false", "starts the forget gate above"),
        "directions not concatenated": ("output_shape = [6, 7, 24]", "output_shape = [6, 7, 12]", "two directions are concatenated"),
        "output not batch-first": ("output_shape = [6, 7, 24]", 'output_shape = "(7, 6, 24)"', "batch_first=True puts the batch first"),
        "output holds every layer": ("output_shape = [6, 7, 24]", "output_shape = [6, 7, 48]", "last layer's states"),
        "batch_first applied to h_n": ("h_n_shape = [4, 6, 12]", "h_n_shape = [6, 4, 12]", "batch_first does not apply"),
        "h_n without directions": ("h_n_shape = [4, 6, 12]", "h_n_shape = [2, 6, 12]", "forgot the directions"),
        "c_n directions concatenated": ("c_n_shape = [4, 6, 12]", "c_n_shape = [4, 6, 24]", "not concatenated"),
        "c_n as output": ("c_n_shape = [4, 6, 12]", "c_n_shape = [6, 7, 24]", "not a state per step"),
        "h_n[-1] as the forward state": ("fwd_last_layer_index = 2", "fwd_last_layer_index = -1", "h_n's last entry"),
        "directions grouped": ("fwd_last_layer_index = 2", "fwd_last_layer_index = 1", "all forward directions first"),
        "backward state at the last step": ("bwd_final_time_index = 0", "bwd_final_time_index = 6", "reads the sequence from the end"),
        "q2 GRU with framework biases": ("q2_gru = 100320", "q2_gru = 100800", "two biases"),
        "q2 LSTM with framework biases": ("q2_lstm = 133760", 'q2_lstm = "4*(160*(48+160+1)+160)"', "two biases"),
        "q2 GRU without bias": ("q2_gru = 100320", "q2_gru = 99840", "bias is missing"),
        "q2 LSTM as three blocks": ("q2_lstm = 133760", "q2_lstm = 100320", "four gate blocks"),
        "q2 GRU as four blocks": ("q2_gru = 100320", "q2_gru = 133760", "three gate blocks"),
        "q2 plain RNN": ("q2_lstm = 133760", "q2_lstm = 33440", "plain RNN"),
        "q2 not an integer": ("q2_gru = 100320", "q2_gru = 100320.5", "whole number"),
        "inverted ratio": ("gru_lstm_ratio = 0.75", 'gru_lstm_ratio = "4/3"', "inverted"),
        "GRU over the plain RNN": ("gru_lstm_ratio = 0.75", "gru_lstm_ratio = 3", "GRU over the plain RNN"),
        "LSTM over the plain RNN": ("gru_lstm_ratio = 0.75", 'gru_lstm_ratio = "4"', "LSTM over the plain RNN"),
        "sigma(0)": ("sigma_1 = 0.7310585786300049", "sigma_1 = 0.5", "σ(0)"),
        "tanh(1)": ("sigma_1 = 0.7310585786300049", "sigma_1 = 0.7616", "tanh(1)"),
        "sigma(-1)": ("sigma_1 = 0.7310585786300049", 'sigma_1 = "1/(1+e)"', "σ(−1)"),
        "linear approximation of sigma": ("sigma_1 = 0.7310585786300049", "sigma_1 = 0.75", "linear approximation"),
        "coupled gates forget more slowly": ('choice_coupled_gates = "B"', 'choice_coupled_gates = "C"', "keeps no more of the old state"),
        "coupled gates as peepholes": ('choice_coupled_gates = "B"', 'choice_coupled_gates = "a"', "coupling is not a peephole"),
        "coupled gates as a plain RNN": ('choice_coupled_gates = "B"', 'choice_coupled_gates = "D"', "the additive cell path stays"),
        "peepholes as a constraint": ('choice_peephole_vs_coupling = "D"', 'choice_peephole_vs_coupling = "A"', "read the peephole as a constraint"),
        "coupling adds a path": ('choice_peephole_vs_coupling = "D"', 'choice_peephole_vs_coupling = "B"', "read coupling as a new path"),
        "peephole and coupling swapped": ('choice_peephole_vs_coupling = "D"', 'choice_peephole_vs_coupling = "C"', "a constraint and coupling as a new path"),
        "any one gate can go": ('choice_greff_2015 = "A"', 'choice_greff_2015 = "C"', "removing the forget gate made results clearly worse"),
        "peepholes essential": ('choice_greff_2015 = "A"', 'choice_greff_2015 = "B"', "removing peepholes did not hurt"),
        "coupled gates win": ('choice_greff_2015 = "A"', 'choice_greff_2015 = "D"', "coupled gates did not clearly beat"),
        "nothing beats LSTM": ('choice_jozefowicz_2015 = "C"', 'choice_jozefowicz_2015 = "A"', "did beat"),
        "training makes the forget bias moot": ('choice_jozefowicz_2015 = "C"', 'choice_jozefowicz_2015 = "B"', "sets where the forget gate starts"),
        "the biggest architectures win": ('choice_jozefowicz_2015 = "C"', 'choice_jozefowicz_2015 = "D"', "fancier structure were not supported"),
        "option outside A-D": ('choice_jozefowicz_2015 = "C"', 'choice_jozefowicz_2015 = "E"', "not one of the options"),
    },
)

SHEET = reference("ex11")["answers.toml"]

# name: files in the reference folder's place; each earns full marks
ACCEPTED = {
    '"3/4", negative indices, shapes as strings, lower-case options': {
        "answers.toml": with_answers(
            SHEET,
            gru_lstm_ratio='"3/4"',
            fwd_last_layer_index="-2",
            bwd_final_time_index="-7",
            h_n_shape='"(4, 6, 12)"',
            q2_gru='"3*160*(48+160+1)"',
            sigma_1='"1/(1+exp(-1))"',
            choice_greff_2015='" a "',
            tf_h_only_state='"False"',
            tf_gru_no_cell_state='"TRUE"',
        )
    },
}

# name: (files in the reference folder's place, the points it costs): one wrong true/false item costs 0.25 of its
# part's 2 points, not the whole part
COSTS = {"one wrong true/false item": ({"answers.toml": with_answers(SHEET, tf_h_only_state="true")}, 0.25)}

# name: (text in the reference sheet, the syntax error); each scores 0 with a message naming the line
MALFORMED = {"a key without =": ("output_shape = [6, 7, 24]", "output_shape [6, 7, 24]")}
