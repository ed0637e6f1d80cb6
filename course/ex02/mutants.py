"""ex02's known mistakes on the answer sheet, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank, reference, with_answers

PREACT = 3.4657359027997265  # ln(8/0.25), the reference's preact_value

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = bank(
    "ex02",
    "answers.toml",
    {
        "summed gates": ("three_step_factor = 0.38249999999999995", "three_step_factor = 2.2", "added the gates"),
        "summed gates as arithmetic": ("three_step_factor = 0.38249999999999995", 'three_step_factor = "0.85 + 0.75 + 0.6"', "added the gates"),
        "forgotten share 1 - f": ("three_step_factor = 0.38249999999999995", 'three_step_factor = "0.15*0.25*0.4"', "share forgotten"),
        "f times k": ('const_gate_factor = "f^k"', 'const_gate_factor = "f k"', "multiplied f by k"),
        "1 - f to the k": ('const_gate_factor = "f^k"', 'const_gate_factor = "(1 - f)^k"', "share forgotten"),
        "off-by-one power": ('const_gate_factor = "f^k"', 'const_gate_factor = "f^(k-1)"', "off by one"),
        "exponential approximation": ('const_gate_factor = "f^k"', 'const_gate_factor = "exp(-k(1-f))"', "approximation"),
        "number where a formula is asked": ('const_gate_factor = "f^k"', "const_gate_factor = 0.36", "formula"),
        "1.05 times 30": ("w_up_power = 5.427432640122897", "w_up_power = 26.75", "multiplied f by k"),
        "0.93 from the other column": ("w_down_power = 0.003010480956458922", "w_down_power = 0.16296", "other number of steps"),
        "sigma(0) instead of sigma(1)": ("sigma1_power = 0.0003970127396650433", 'sigma1_power = "0.5^25"', "σ(0) = 0.5"),
        "sigma(1) rounded to 0.73": ("sigma1_power = 0.0003970127396650433", 'sigma1_power = "0.73^25"', "rounded"),
        "bias as the gate value": ("sigma1_power = 0.0003970127396650433", "sigma1_power = 1", "took the bias 1 as the gate value"),
        "sigma(1)^25 clearly off": ("sigma1_power = 0.0003970127396650433", "sigma1_power = 6e-4", "is not correct"),
        "0.98 times 80": ("f_near_power = 0.19864885008204064", "f_near_power = 78.4", "multiplied f by k"),
        "too few digits": ("f_near_power = 0.19864885008204064", "f_near_power = 0.20", "significant digits"),
        "inverted ratio": ("ratio_bias1_bias0 = 13321.536976224399", "ratio_bias1_bias0 = 7.5066e-5", "inverted the ratio"),
        "one-step ratio": ("ratio_bias1_bias0 = 13321.536976224399", 'ratio_bias1_bias0 = "sigma(1)/0.5"', "ratio after one step"),
        "ratio with 0.73": ("ratio_bias1_bias0 = 13321.536976224399", 'ratio_bias1_bias0 = "(0.73/0.5)^25"', "rounded"),
        "ln(epsilon/k) sign error": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(epsilon/k)"', "sign error"),
        "log10 instead of ln": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(k/ε)/ln(10)"', "log10"),
        "forgot the logarithm": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "k/eps"', "forgot the logarithm"),
        "gate value instead of pre-activation": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "1 - epsilon/k"', "gate value f"),
        "epsilon in the numerator": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "\\\\ln(k \\\\cdot \\\\epsilon)"', "ε on the wrong side"),
        "unknown symbol": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(T/epsilon)"', "'T'"),
        "negative pre-activation": ("preact_value = 3.4657359027997265", "preact_value = -3.4657", "sign error"),
        "log10 value": ("preact_value = 3.4657359027997265", 'preact_value = "log(32)/log(10)"', "log10"),
        "k missing from the value": ("preact_value = 3.4657359027997265", 'preact_value = "ln(1/0.25)"', "k is missing"),
        "exact logit": ("preact_value = 3.4657359027997265", 'preact_value = "ln(0.75^0.125/(1 - 0.75^0.125))"', "exact logit"),
        "exact solution formula": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(k/epsilon - 1)"', "that is the exact solution"),
        "exact solution value": (f"preact_value = {PREACT!r}", 'preact_value = "ln(8/0.25 - 1)"', "that is the exact solution"),
        "bias 1 instead of 3": ("bias_sim = 0.48248267112922555", "bias_sim = 0.0091051", "another forget bias"),
        "bias 2 instead of 3": ("bias_sim = 0.48248267112922555", "bias_sim = 0.14898", "another forget bias"),
        "simulation off by one": ("bias_sim = 0.48248267112922555", 'bias_sim = "sigma(3)^16"', "off by one"),
        "direct path can amplify": ("only_decays = true", "only_decays = false", "cannot exceed 1"),
        "gating guarantees no vanishing": ("guarantees_no_vanishing = false", "guarantees_no_vanishing = true", "only mitigates"),
        "statement as a word": ("guarantees_no_vanishing = false", 'guarantees_no_vanishing = "no"', "not true or false"),
        "1.07 to the 24th": ("w_up_power = 5.427432640122897", 'w_up_power = "1.07^24"', "off by one step"),
        "0.98 to the 79th": ("f_near_power = 0.19864885008204064", 'f_near_power = "0.98^79"', "off by one step"),
        "0.93 to the 81st": ("w_down_power = 0.003010480956458922", 'w_down_power = "0.93^81"', "off by one step"),
        "sigma(1) to the 26th": ("sigma1_power = 0.0003970127396650433", 'sigma1_power = "sigma(1)^26"', "off by one step"),
        "log10 typed as a function": ("preact_value = 3.4657359027997265", 'preact_value = "log10(32)"', "used log10"),
    },
)

SHEET = reference("ex02")["answers.toml"]

# name: files in the reference folder's place; each earns full marks
ACCEPTED = {
    "exact expressions, rounded table values within tolerance, other notations": {
        "answers.toml": (
            'three_step_factor = "0.85*0.75*0.6"\n'
            'const_gate_factor = "f**k"\n'
            'w_up_power = "1.07^25"\n'
            "w_down_power = 3.0105e-3\n"
            'sigma1_power = "sigma(1)^25"\n'
            "f_near_power = 0.19865\n"
            "ratio_bias1_bias0 = 1.33e4\n"  # rounded, within 2 %
            'preact_formula = "\\\\ln\\\\frac{k}{\\\\epsilon}"\n'
            'preact_value = "ln(8/0.25)"\n'
            "bias_sim = 0.4825\n"
            'only_decays = "True"\n'
            "guarantees_no_vanishing = false\n"
        )
    },
    # σ(1)^30 with σ(1) rounded as the textbook prints it, as the statement's 2 % promises
    **{f"sigma1_power = {answer}": {"answers.toml": with_answers(SHEET, sigma1_power=answer)} for answer in ['"0.7311^25"', '"0.731^25"', "3.97e-4"]},
}

# name: (files in the reference folder's place, the points it costs): one wrong entry of the scalar table costs only
# its share, 0.5 of 2 points
COSTS = {"one wrong entry of the scalar table": ({"answers.toml": with_answers(SHEET, w_up_power="26.75")}, 0.5)}

# name: (text in the reference sheet, the syntax error); each scores 0 with a message naming the line
MALFORMED = {"a doubled =": ("bias_sim = 0.48", "bias_sim = = 0.48")}
