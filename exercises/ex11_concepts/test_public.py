"""Public checks for ex11 (worth no points): answers.toml holds the course's keys, each answered in the form its
question asks. Run: grade run ex11

The form only (a number, a formula in the question's symbols, an option, the digits asked): whether an answer is
right is decided by the hidden checks. The keys and forms below are the course's, not your sheet's.
"""

from grader.checks import Boolean, Choice, Integer, Number, Shape, check_sheet_form

FORMS = {
    **dict.fromkeys(("tf_gating_cures_vanishing", "tf_direct_path_no_w", "tf_parallel_over_time", "tf_h_only_state",
                     "tf_gru_no_cell_state", "tf_bidirectional_generation", "tf_carry_state_without_detach",
                     "tf_forget_bias_slows_decay"), Boolean()),
    **dict.fromkeys(("output_shape", "h_n_shape", "c_n_shape"), Shape()),
    **dict.fromkeys(("fwd_last_layer_index", "bwd_final_time_index", "q2_gru", "q2_lstm"), Integer()),
    "gru_lstm_ratio": Number(),
    "sigma_1": Number(digits=4),
    **dict.fromkeys(("choice_coupled_gates", "choice_peephole_vs_coupling", "choice_greff_2015",
                     "choice_jozefowicz_2015"), Choice()),
}


def test_sheet_form(answers):
    """answers.toml has exactly the course's keys, each answered in the form its question asks
    answers.toml 恰好含有课程的所有键，每个答案的形式符合题目要求"""
    check_sheet_form(answers, FORMS)
