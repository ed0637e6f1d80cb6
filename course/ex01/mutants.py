"""ex01's known mistakes on the answer sheet, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = bank(
    "ex01",
    "answers.toml",
    {
        "h without tanh": ("h_t = 0.4725420099897893", "h_t = 0.639", "forgot the tanh"),
        "tanh outside": ("h_t = 0.4725420099897893", 'h_t = "tanh(0.6*1.065)"', "tanh outside"),
        "old cell state": ("h_t = 0.4725420099897893", 'h_t = "0.6 tanh(1.6)"', "old cell state"),
        "coupled gate value": ("c_t = 1.065", "c_t = 1.125", "coupled gate"),
        "forget-gate term dropped": ("c_t = 1.065", 'c_t = "0.45*(-0.3)"', "the forget-gate term is missing"),
        "coupled gate, forget-gate term dropped": ("c_t = 1.065", "c_t = -0.075", "two mistakes"),
        "old state not scaled by f": ("c_t = 1.065", 'c_t = "1.6 + 0.45*(-0.3)"', "the forget gate is missing"),
        "terms multiplied": ("c_t = 1.065", "c_t = -0.162", "multiplied the two terms"),
        "coupled gate formula": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f c_prev + (1 - f) g"', "coupled gate"),
        "formula without the forget-gate term": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "i g"', "the forget-gate term is missing"),
        "formula with an unscaled old state": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "c_prev + i g"', "the forget gate is missing"),
        "formula with the terms multiplied": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f c_prev i g"', "multiplied the two terms"),
        "formula without tanh": ('h_t_formula = "o*tanh(c_t)"', 'h_t_formula = "o c_t"', "forgot the tanh"),
        "formula tanh outside": ('h_t_formula = "o*tanh(c_t)"', 'h_t_formula = "\\\\tanh(o \\\\cdot c_t)"', "tanh outside"),
        "too coarse": ("h_t = 0.4725420099897893", "h_t = 0.47", "significant digits"),
        "number for a formula": ('h_t_formula = "o*tanh(c_t)"', "h_t_formula = 0.47254", "formula"),
        "unknown symbol": ('c_t_formula = "f*c_prev + i*g"', 'c_t_formula = "f*c_old + i*g"', "c_old"),
        "h_t without tanh, from a coupled c_t": ("c_t = 1.065\nh_t = 0.4725420099897893", "c_t = 1.125\nh_t = 0.675", "forgot the tanh"),
        "coupled c_t, h_t right for it": ("c_t = 1.065\nh_t = 0.4725420099897893", 'c_t = 1.125\nh_t = "0.6*tanh(1.125)"', "coupled gate"),
    },
)

# name: files in the reference folder's place; each earns full marks
ACCEPTED = {
    "implicit products, Unicode, LaTeX, exact expressions": {
        "answers.toml": ('c_t = "0.75*1.6 + 0.45*(-0.3)"\nh_t = "0.6 tanh(1.065)"\nc_t_formula = "i g + f·c_prev"\nh_t_formula = "\\\\tanh(c_t) \\\\cdot o"\n')
    },
}

# name: (text in the reference sheet, the syntax error); each scores 0 with a message naming the line
MALFORMED = {"a doubled =": ("c_t = 1.065", "c_t = = 1.065")}
