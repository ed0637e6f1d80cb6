"""Every bank of known mistakes (course/<id>/mutants.py), each mutant graded once: it loses points and a failed check names
its diagnosis; it earns on each check what the ledger (tests/mutant_ledger.toml) says; no feedback gives a reference answer
away; in Chinese no English sentence is left."""

import math
import random
import re
import tomllib

import pytest

from conftest import ROOT, assert_named, statement_choices
from grader.grading.answers.quoting import show
from grader.grading.expr import CONSTANTS, FUNCTIONS, ExpressionError, UndefinedError, evaluate, free_symbols, parse
from grader.results import ExerciseResult
from mutants import ALL, LEDGER_PATH, REWRITE_LEDGER, Mutant, costs, course, moved, read_ledger, submission, write_ledger

pytestmark = pytest.mark.slow  # every bank's mutants graded

_GRADED: dict[str, ExerciseResult] = {}  # mutant id -> its result: one grading per mutant for every test here


@pytest.fixture
def graded(grade):
    """graded(mutant) -> the ExerciseResult of the mutant's submission, graded the first time it is asked for."""

    def result(mutant: Mutant) -> ExerciseResult:
        if mutant.id not in _GRADED:
            _GRADED[mutant.id] = grade(mutant.exercise, submission(mutant))
        return _GRADED[mutant.id]

    return result


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: m.id)
def test_mutant_is_caught_and_named(graded, mutant: Mutant):
    """Does this known mistake, in its exercise's reference folder, lose points with its diagnosis in the feedback?"""
    result = graded(mutant)
    assert_named(result, mutant.diagnosis)
    # Where the feedback names it as the mistake, the verdict carries it as a field (what summaries count).
    spoken = re.compile(r"(Likely mistake|not correct): [^\n]*" + re.escape(mutant.diagnosis))
    if any(spoken.search(v.feedback.en) for v in result.checks if not v.passed):
        assert any(mutant.diagnosis in d for v in result.checks for d in v.diagnosis), mutant.id


def test_every_exercise_has_a_bank_of_distinct_mistakes():
    """Does every exercise have known mistakes, each with its own name and a change that is one?"""
    assert {m.exercise for m in ALL} == {e.id for e in course().exercises}
    assert len({m.id for m in ALL}) == len(ALL), [m.id for m in ALL if [n.id for n in ALL].count(m.id) > 1]
    assert all(m.old != m.new for m in ALL), [m.id for m in ALL if m.old == m.new]


# -- what each mistake costs, check by check --------------------------------------------------------------


@pytest.fixture(scope="module")
def ledger(request):
    """{mutant id: {check name: points}} to compare with; under --update-ledger, one that the mutants graded here fill,
    written over the file's lines for them as the module ends (a mutant no bank holds any more is dropped)."""
    held = read_ledger()
    if not request.config.getoption("--update-ledger"):
        yield held
        return
    fresh: dict[str, dict[str, float]] = {}
    yield fresh
    banked = {m.id for m in ALL}
    write_ledger({mutant: points for mutant, points in held.items() if mutant in banked} | fresh)


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: m.id)
def test_mutant_earns_what_the_ledger_holds(graded, ledger, request, mutant: Mutant):
    """Does this known mistake earn on each check of its exercise the points the ledger holds – no check weakened or
    strengthened, added or renamed, unseen?"""
    now = costs(graded(mutant))
    if request.config.getoption("--update-ledger"):
        ledger[mutant.id] = now
        return
    rewrite = f"If the change is deliberate, rewrite the ledger and review its diff: {REWRITE_LEDGER}"
    assert mutant.id in ledger, f"{mutant.id}: a mutant {LEDGER_PATH} lacks. {rewrite}"
    lines = moved(ledger[mutant.id], now)
    assert not lines, f"{mutant.id}: its points moved from what {LEDGER_PATH} holds:\n" + "\n".join(lines) + f"\n{rewrite}"


def test_the_ledger_holds_every_mutant_and_no_other(request):
    """Does the ledger hold a line for every mutant of the banks, and none for a mutant no bank holds?"""
    if request.config.getoption("--update-ledger"):
        pytest.skip("the ledger is being rewritten")
    banked, held = {m.id for m in ALL}, set(read_ledger())
    assert held == banked, f"{LEDGER_PATH} lacks {sorted(banked - held)} and holds {sorted(held - banked)}, which no bank has; rewrite it: {REWRITE_LEDGER}"


# -- no feedback gives the answer ----------------------------------------------------------------------


def sheet(exercise_id: str, files: dict[str, str] | None = None) -> dict:
    """The answers of a sheet: the reference sheet, or the one in `files` (a submission); {} without one."""
    exercise = course().exercise(exercise_id)
    if files is None:
        path = exercise.solution_dir / "answers.toml"
        return tomllib.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    return tomllib.loads(files["answers.toml"]) if "answers.toml" in files else sheet(exercise_id)


OPTION = re.compile(r"[A-Z]")  # a multiple-choice key; an option that is a number ("0.9") is read as a number
NUMBER = re.compile(r"(?<![\w.])\d{1,3}(?:,\d{3})+(?![\w.])|(?<![\w.])\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?:/\d+)?(?![\w.])")
SHAPE = re.compile(r"[\[(]\s*\d+(?:\s*,\s*\d+)+\s*[\])]")
FORMULA_CHARS = re.compile(r"[A-Za-z0-9_ .+\-*/^()σεθ√]+")
TYPESET = str.maketrans({"⊙": "*", "·": "*", "×": "*", "−": "-", "ᵀ": " "})


def significant(token: str) -> int:
    return len(re.sub(r"[eE].*", "", token).replace(".", "").lstrip("0"))


def gives_number(text: str, expected: float) -> list[str]:
    """The numbers in `text` that state `expected`: itself (two digits or more), or rounded to three or more digits."""
    found = []
    for token in NUMBER.findall(text):
        try:
            value = evaluate(parse(token.replace(",", ""), {}), {})
        except (ExpressionError, UndefinedError):
            continue
        digits = significant(token.split("/")[0].replace(",", ""))
        if "/" in token or digits < 3:
            if math.isclose(value, expected, rel_tol=1e-12) and ("/" in token or digits >= 2 or abs(expected) >= 100):
                found.append(token)
        elif math.isclose(value, float(f"{expected:.{digits - 1}e}"), rel_tol=1e-9):
            found.append(token)
    return found


def gives_formula(text: str, expected: str) -> list[str]:
    """The fragments of `text` that, read as formulas, are equivalent to `expected` (sampled at random points)."""
    names = {n for n in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expected) if n not in FUNCTIONS and n not in CONSTANTS}
    symbols = dict.fromkeys(names, "positive")
    reference = parse(expected, symbols)
    points = [{n: draw.uniform(0.2, 0.9) for n in sorted(names)} for draw in map(random.Random, range(3))]
    wanted = [evaluate(reference, p) for p in points]
    found = []
    for run in FORMULA_CHARS.findall(text.translate(TYPESET)):
        words = list(re.finditer(r"\S+", run))
        for i in range(len(words)):
            for j in range(i, len(words)):
                fragment = run[words[i].start() : words[j].end()].strip(" .,;:")
                try:
                    formula = parse(fragment, symbols)
                    if not free_symbols(formula):
                        continue
                    if all(math.isclose(evaluate(formula, p), w, rel_tol=1e-9) for p, w in zip(points, wanted)):
                        found.append(fragment)
                except (ExpressionError, UndefinedError, KeyError):
                    continue
    return found


def gives_option(text: str, key: str) -> list[str]:
    """The places in `text` that name option `key` as an answer ("B)", '"B"', "option B", "选 B")."""
    pattern = rf"(?<![\w]){key}\)|[\"'“‘]{key}[\"'”’]|\b(?:option|answer|choose|pick)\s+{key}\b|选(?:项)?\s*{key}\b"
    return re.findall(pattern, text, flags=re.IGNORECASE)


def key_options(exercise_id: str) -> dict[str, tuple[str, str]]:
    """{key: (its key option's English text, its Chinese text)} of the exercise's multiple-choice items."""
    statement = (ROOT / "exercises" / course().exercise(exercise_id).folder / "README.md").read_text(encoding="utf-8")
    english, chinese = (statement_choices(part) for part in statement.split("\n## 中文", 1))
    return {
        key: (english[key][1][letter], chinese[key][1][letter])
        for key, letter in sheet(exercise_id).items()
        if isinstance(letter, str) and OPTION.fullmatch(letter) and key in english and key in chinese
    }


def restates(text: str, option: tuple[str, str]) -> str:
    """What `text` repeats of a key option: four words in a row of its English, or eight Chinese characters of its Chinese."""
    runs = {" ".join(w) for w in zip(*(re.findall(r"[\w′]+", option[0].lower())[i:] for i in range(4)))}
    seen_words = re.findall(r"[\w′]+", text.lower())
    english = next((" ".join(w) for w in zip(*(seen_words[i:] for i in range(4))) if " ".join(w) in runs), "")
    chinese = "".join(re.findall(r"[\u4e00-\u9fff]", option[1]))
    written = "".join(re.findall(r"[\u4e00-\u9fff]", text))
    return english or next((chinese[i : i + 8] for i in range(len(chinese) - 7) if chinese[i : i + 8] in written), "")


def answers_given(text: str, reference: dict, options: dict[str, tuple[str, str]] | None = None) -> list[str]:
    """Every reference answer of `reference` that `text` states, as 'key: what states it'; for a choice item also
    its key option's words (`options`, from key_options)."""
    found = []
    for key, value in reference.items():
        if isinstance(value, bool):
            continue  # true and false are words of every statement
        if isinstance(value, str) and OPTION.fullmatch(value):
            judged = "\n".join(line for line in text.splitlines() if "answers.toml" in line)  # what the sheet's judge said
            hits = gives_option(text, value) + [run for run in [restates(judged, (options or {}).get(key, ("", "")))] if run]
        elif isinstance(value, list):
            hits = [s for s in SHAPE.findall(text) if [int(d) for d in re.findall(r"\d+", s)] == value]
        elif isinstance(value, (int, float)):
            hits = gives_number(text, float(value)) if value >= 100 or isinstance(value, float) else []
        else:
            try:
                number = evaluate(parse(value, {}), {})
            except ExpressionError:
                hits = gives_formula(text, value)
            else:
                hits = gives_number(text, number) + [q for q in re.findall(r"[\"'“]([^\"'”]+)[\"'”]", text) if q == value]
        found += [f"{key}: {hit}" for hit in hits]
    return found


# What a submission's code returned, as the feedback echoes it: "returned 120", "返回了 120", "gives c=1.5".
RETURNED = re.compile(r"(?:returned|返回了|gives|得到)\s+(?:[\w.]+=)?[^\s,;，；、）)]+")


def seen(result: ExerciseResult, language: str) -> list[tuple[str, str]]:
    """(check, what the student reads) for every failed check: its title and feedback in `language`."""
    return [(v.name, v.title.render(language) + "\n" + v.feedback.render(language)) for v in result.checks if not v.passed]


def without(text: str, echoes: tuple[str, ...]) -> str:
    """`text` without the student's own answers and values as the grader echoes them (`echoes`, RETURNED)."""
    text = RETURNED.sub("", text)
    for echo in echoes:
        text = text.replace(echo, "")
    return text


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: m.id)
def test_feedback_never_gives_the_answer(graded, mutant: Mutant):
    """Does no failed check's title or feedback, in either language, state a reference answer of the exercise's sheet
    (a number, a formula or an equivalent one, a shape, a choice's key)? The student's own answers it echoes aside."""
    reference = sheet(mutant.exercise)
    typed = sheet(mutant.exercise, submission(mutant))
    echoes = tuple(show(v) for k, v in typed.items() if reference.get(k) != v)
    options = key_options(mutant.exercise)
    given = [
        (check, answer)
        for language in ("en", "zh")
        for check, text in seen(graded(mutant), language)
        for answer in answers_given(without(text, echoes), reference, options)
    ]
    assert not given, given


def test_the_answer_detector_sees_answers():
    """Does the detector see an answer written out in feedback (the formula typeset, the number rounded, the key
    named), and leave a wrong one alone?"""
    reference = {"h_t_formula": "o*tanh(c_t)", "h_t": 0.4525741268224332, "pick": "B", "shape": [2, 4, 10], "n": 82432}
    assert answers_given("forgot the tanh: h_t = o ⊙ tanh(c_t), not o ⊙ c_t", reference) == ["h_t_formula: o * tanh(c_t)"]
    assert answers_given("0.4526 is closer; the right option is B); output is (2, 4, 10); 82,432 in all", reference) == [
        "h_t: 0.4526",
        "pick: B)",
        "shape: (2, 4, 10)",
        "n: 82,432",
    ]
    assert answers_given("tanh outside: tanh(o ⊙ c_t); 0.45 is too coarse; option C; 82433", reference) == []
    key = {"pick": ("how the cells compare at one state width", "它们在同一状态宽度下如何比较")}
    assert answers_given("answers.toml, pick: not correct: the cells differ at one width", reference, key) == []
    assert answers_given("answers.toml, other: not correct: it shows how the cells compare", reference, key) == ["pick: how the cells compare"]
    assert answers_given("answers.toml，pick：不正确：它们在同一状态宽度下的比较", reference, key) == ["pick: 它们在同一状态宽"]


# -- Chinese feedback is Chinese -------------------------------------------------------------------------

# What stays as written in a Chinese sentence: the student's own words and code as the grader quotes them,
# what their code printed, and words that are code, file names, numbers or symbols (a dot, digit, bracket...).
QUOTED = re.compile(r"'[^'\n]*'|\"[^\"\n]*\"|“[^”\n]*”|`[^`\n]*`")
OWN_OUTPUT = "\n--- 你的代码自己的输出"
CALL = re.compile(r"[\w.]+\([^()]*\)")
WORD = re.compile(r"(?<![\w.\-/\\'])[A-Za-z]{2,}(?![\w.(\[\-/'])")
ENGLISH_WORDS = frozenset(
    "a an the of in on at to for with without from by and or not no is are was be been has have had it its this that "
    "these those your you we our returned expected got gives gave counts count once when where which than then must "
    "should can cannot does do did only also but as if yet see check wrong right values value missing lacks".split()
)


def english_in(text: str) -> list[str]:
    """The English sentences left in a Chinese text: a line with no Chinese and two English words or more, or an
    English function word ("the", "with", "returned"...) among Chinese words."""
    found = []
    for line in text.split(OWN_OUTPUT)[0].splitlines():
        code = QUOTED.sub(" ", line)
        while CALL.search(code):
            code = CALL.sub(" ", code)  # sum(p.numel() for p in model.parameters()): a call, with all in it
        words = WORD.findall(code)
        plain = not re.search(r"[\u4e00-\u9fff]", line)
        if (plain and len(words) >= 2) or any(w.lower() in ENGLISH_WORDS for w in words):
            found.append(line)
    return found


@pytest.mark.parametrize("mutant", ALL, ids=lambda m: m.id)
def test_feedback_in_chinese_is_chinese(graded, mutant: Mutant):
    """Graded in Chinese, do the exercise's title and every failed check's title, feedback and note read in Chinese –
    no English sentence left, the student's words, code, identifiers and file names aside?"""
    result = graded(mutant)
    texts = [text for _, text in seen(result, "zh")] + [result.note.render("zh"), result.heading.render("zh")]
    left = [line for text in texts for line in english_in(text)]
    assert not left, left


def test_the_english_detector_sees_english():
    """Does the detector see an English sentence or phrase left in Chinese feedback, and pass Chinese with code in it?"""
    assert english_in("count_params('rnn', 4, 3) returned 21, PyTorch counts 27") != []
    assert english_in("lstm_step()['c'] in float32：数值错误") != []
    assert english_in("c with zero weights：数值错误") != []
    assert english_in('gated.py 使用了库中的循环单元（torch.nn.LSTMCell）；提交代码给出的信息："mat1 and mat2 shapes cannot be multiplied"') == []
    assert english_in("lstm_step()['h'] 在预激活值很大时出现 NaN 或无穷大：请使用 torch.sigmoid 和 torch.tanh") == []
