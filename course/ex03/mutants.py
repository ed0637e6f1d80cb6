"""ex03's known mistakes on the answer sheet, and its tables of other submissions (tests/test_submission_tables.py)."""

from mutants import bank

# name: (answer in the reference, the wrong answer, words the feedback must contain)
MUTANTS = bank(
    "ex03",
    "answers.toml",
    {
        "textbook convention where the answer key's is asked": ("h_t = 2.15", "h_t = 0.75", "swapped GRU convention"),
        "answer-key convention where the textbook's is asked": (
            "h_t_other_convention = 0.75",
            'h_t_other_convention = "0.7*3.2 + 0.3*(-0.3)"',
            "swapped GRU convention",
        ),
        "(1 - z) direct factor": ("direct_factor = 0.7", "direct_factor = 0.3", "(1 − z) factor of the textbook's convention"),
        "ratio instead of derivative": ("direct_factor = 0.7", "direct_factor = 0.671875", "ratio of values"),
        "derivative with respect to z": ("direct_factor = 0.7", "direct_factor = 3.5", "∂h_t/∂z"),
        "identity path": ("direct_factor = 0.7", "direct_factor = 1", "not an identity"),
        "candidate sign dropped": ("h_t = 2.15", "h_t = 2.33", "sign was dropped"),
        "candidate sign dropped, textbook convention": ("h_t_other_convention = 0.75", "h_t_other_convention = 1.17", "sign was dropped"),
        "candidate term missing": ("h_t = 2.15", "h_t = 2.24", "candidate term is missing"),
        "same weight on both terms": ("h_t_other_convention = 0.75", "h_t_other_convention = 2.03", "same weight"),
        "text instead of a number": ("h_t = 2.15", 'h_t = "about one"', "asks for a number"),
        "both values in each other's keys": (
            "h_t = 2.15                    # the answer key's / PyTorch's convention: z*h_prev + (1-z)*candidate\n"
            "direct_factor = 0.7           # ∂h_t/∂h_prev ≈ z in that convention\n"
            "h_t_other_convention = 0.75",
            "h_t = 0.75\ndirect_factor = 0.7\nh_t_other_convention = 2.15",
            "the two conventions are mixed up",
        ),
        "textbook convention in (a) and (b)": (
            "h_t = 2.15                    # the answer key's / PyTorch's convention: z*h_prev + (1-z)*candidate\ndirect_factor = 0.7",
            "h_t = 0.75\ndirect_factor = 0.3",
            "swapped GRU convention",
        ),
    },
)

# name: (text in the reference sheet, the syntax error); each scores 0 with a message naming the line
MALFORMED = {"two values on one line": ("direct_factor = 0.7 ", "direct_factor = 0.7 0.25 ")}
