"""ex02's known mistakes on the answer sheet."""

from . import bank

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = bank("ex02", "answers.toml", {
    "summed gates": ("three_step_factor = 0.36", "three_step_factor = 2.2", "added the gates"),
    "summed gates as arithmetic": ("three_step_factor = 0.36", 'three_step_factor = "0.9 + 0.8 + 0.5"', "added the gates"),
    "forgotten share 1 - f": ("three_step_factor = 0.36", 'three_step_factor = "0.1*0.2*0.5"', "share forgotten"),
    "f times k": ('const_gate_factor = "f^k"', 'const_gate_factor = "f k"', "multiplied f by k"),
    "1 - f to the k": ('const_gate_factor = "f^k"', 'const_gate_factor = "(1 - f)^k"', "share forgotten"),
    "off-by-one power": ('const_gate_factor = "f^k"', 'const_gate_factor = "f^(k-1)"', "off by one"),
    "exponential approximation": ('const_gate_factor = "f^k"', 'const_gate_factor = "exp(-k(1-f))"', "approximation"),
    "number where a formula is asked": ('const_gate_factor = "f^k"', "const_gate_factor = 0.36", "formula"),
    "1.05 times 30": ("w105_k30 = 4.321942375150668", "w105_k30 = 31.5", "multiplied f by k"),
    "0.95 from the k = 30 column": ("w095_k100 = 0.0059205292203339975", "w095_k100 = 0.2146", "other number of steps"),
    "sigma(0) instead of sigma(1)": ("sigma1_k30 = 8.290206177154693e-05", 'sigma1_k30 = "0.5^30"', "σ(0) = 0.5"),
    "sigma(1) rounded to 0.73": ("sigma1_k30 = 8.290206177154693e-05", 'sigma1_k30 = "0.73^30"', "rounded"),
    "bias as the gate value": ("sigma1_k30 = 8.290206177154693e-05", "sigma1_k30 = 1", "took the bias 1 as the gate value"),
    "sigma(1)^30 clearly off": ("sigma1_k30 = 8.290206177154693e-05", "sigma1_k30 = 1.2e-4", "is not correct"),
    "0.99 times 100": ("f099_k100 = 0.3660323412732292", "f099_k100 = 99", "multiplied f by k"),
    "too few digits": ("f099_k100 = 0.3660323412732292", "f099_k100 = 0.37", "significant digits"),
    "inverted ratio": (
        "ratio_bias1_bias0_k30 = 89015.41101994147", "ratio_bias1_bias0_k30 = 1.1234e-5", "inverted the ratio"),
    "one-step ratio": (
        "ratio_bias1_bias0_k30 = 89015.41101994147", 'ratio_bias1_bias0_k30 = "sigma(1)/0.5"', "ratio after one step"),
    "ratio with 0.73": ("ratio_bias1_bias0_k30 = 89015.41101994147", 'ratio_bias1_bias0_k30 = "(0.73/0.5)^30"', "rounded"),
    "ln(epsilon/k) sign error": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(epsilon/k)"', "sign error"),
    "log10 instead of ln": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(k/ε)/ln(10)"', "log10"),
    "forgot the logarithm": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "k/eps"', "forgot the logarithm"),
    "gate value instead of pre-activation": (
        'preact_formula = "ln(k/epsilon)"', 'preact_formula = "1 - epsilon/k"', "gate value f"),
    "epsilon in the numerator": (
        'preact_formula = "ln(k/epsilon)"', 'preact_formula = "\\\\ln(k \\\\cdot \\\\epsilon)"', "ε on the wrong side"),
    "unknown symbol": ('preact_formula = "ln(k/epsilon)"', 'preact_formula = "ln(T/epsilon)"', "'T'"),
    "negative pre-activation": ("preact_k100_eps01 = 6.907755278982137", "preact_k100_eps01 = -6.9078", "sign error"),
    "log10 value": ("preact_k100_eps01 = 6.907755278982137", 'preact_k100_eps01 = "log(1000)/log(10)"', "log10"),
    "k missing from the value": (
        "preact_k100_eps01 = 6.907755278982137", 'preact_k100_eps01 = "ln(1/0.1)"', "or k is missing"),
    "exact logit": (
        "preact_k100_eps01 = 6.907755278982137", 'preact_k100_eps01 = "ln(0.9^0.01/(1 - 0.9^0.01))"', "exact logit"),
    "bias 1 instead of 2": ("bias2_k10 = 0.28103386232059546", "bias2_k10 = 0.0436", "another forget bias"),
    "bias 0 instead of 2": ("bias2_k10 = 0.28103386232059546", "bias2_k10 = 9.77e-4", "another forget bias"),
    "simulation off by one": ("bias2_k10 = 0.28103386232059546", 'bias2_k10 = "sigma(2)^11"', "off by one"),
    "direct path can amplify": ("only_decays = true", "only_decays = false", "cannot exceed 1"),
    "gating guarantees no vanishing": (
        "guarantees_no_vanishing = false", "guarantees_no_vanishing = true", "only mitigates"),
    "statement as a word": ("guarantees_no_vanishing = false", 'guarantees_no_vanishing = "no"', "not true or false"),
})
