"""Statements and stubs: no example gives an answer away, sources are named as a reader knows them,
and every points table agrees with course.toml and the checks."""

import ast
import re
import tomllib
from pathlib import Path

import pytest

from conftest import ROOT, sheet_choices, statement_choices
from grader.checks import Fail
from grader.course import load_course
from grader.grading.answers import AnswerSheet
from grader.grading.answers.reading import MAX_SHEET_BYTES
from grader.grading.expr import CONSTANTS, FUNCTIONS, evaluate, parse
from grader.inside import layout
from grader.submissions.workspace import HANDIN_FILE_BYTES

COURSE = load_course(ROOT)
EXERCISES = sorted((ROOT / "exercises").glob("*/"))
CODE_SPAN = re.compile(r"`([^`\n]+)`")
QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CHOICE = re.compile(r"[A-Z]|[0-9.]+")  # an answer-key string that names an option, not a formula


def unquote(text: str) -> str:
    """A TOML string's value ('"\\\\ln x"' -> '\\ln x'); anything else as it is."""
    if len(text) >= 2 and text[0] == text[-1] == '"':
        try:
            return tomllib.loads(f"v = {text}")["v"]
        except tomllib.TOMLDecodeError:
            return text[1:-1]
    return text


def examples() -> list[tuple[str, str]]:
    """(where, text): every code span of a statement, every quoted string in a stub sheet's comments."""
    found = []
    for folder in EXERCISES:
        for n, line in enumerate((folder / "README.md").read_text(encoding="utf-8").splitlines(), 1):
            found += [(f"{folder.name}/README.md:{n}", unquote(span.strip())) for span in CODE_SPAN.findall(line)]
        sheet = folder / "answers.toml"
        if sheet.exists():
            for n, line in enumerate(sheet.read_text(encoding="utf-8").splitlines(), 1):
                if line.lstrip().startswith("#"):
                    found += [(f"{folder.name}/answers.toml:{n}", unquote(s)) for s in QUOTED.findall(line)]
    return found


def answer_key() -> list[tuple[str, str, object]]:
    """(exercise folder, key, reference answer) for every numeric, shape and formula answer of the course."""
    found = []
    for sheet in sorted((ROOT / "solutions").glob("*/answers.toml")):
        for key, value in tomllib.loads(sheet.read_text(encoding="utf-8")).items():
            if isinstance(value, bool) or (isinstance(value, str) and CHOICE.fullmatch(value)):
                continue  # true/false and options are named in every statement by design
            found.append((sheet.parent.name, key, value))
    return found


def accepted(text: str, key: str, expected: object) -> bool:
    """Whether the course's own answer checking would accept `text` as the answer `expected`."""
    sheet = AnswerSheet(Path("answers.toml"), {key: text}, fallback_seconds=0)
    try:
        if isinstance(expected, list):
            sheet.shape(key, expected)
        elif isinstance(expected, int):
            sheet.integer(key, expected)
        elif isinstance(expected, float):
            sheet.number(key, expected)
        else:
            symbols = {n: "positive" for n in NAME.findall(expected) if n not in FUNCTIONS and n not in CONSTANTS}
            sheet.formula(key, expected, symbols)
    except Fail:
        return False
    return True


EXAMPLES, ANSWERS = examples(), answer_key()


def test_examples_are_collected():
    """Does the example collector see the format examples of statements and sheets?"""
    texts = {text for _, text in EXAMPLES}
    assert {"1.2e-5", "[7, 1, 3]"} <= texts
    assert len(ANSWERS) > 30


@pytest.mark.parametrize(("folder", "key", "expected"), ANSWERS, ids=[f"{f[:4]}/{k}" for f, k, _ in ANSWERS])
@pytest.mark.slow
def test_no_example_is_an_answer(folder, key, expected):
    """Is every example in exercises/ something other than this answer (equal, or equivalent to it)?"""
    giving_away = [where for where, text in EXAMPLES if accepted(text, key, expected)]
    assert not giving_away, f"{folder} {key}: these examples are accepted as its answer: {giving_away}"


# A number as a source line writes it: 150, 0.281, 3/4 (not section numbers such as 2.3.1, item 8 or Q2).
SOURCE_NUMBER = re.compile(r"(?<![\w.§])\d+(?:\.\d+|/\d+)?(?![\w.]*\d)")


def source_lines() -> list[tuple[str, str]]:
    """(where, paragraph) of every statement's Source paragraph, English and Chinese."""
    found = []
    for folder in EXERCISES:
        lines = (folder / "README.md").read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines):
            if line.startswith(("Source:", "来源：")):
                end = next((i for i in range(n, len(lines)) if not lines[i].strip()), len(lines))
                found.append((f"{folder.name}/README.md:{n + 1}", " ".join(lines[n:end])))
    return found


def rounds_to(typed: str, expected: float) -> bool:
    """Whether `typed` is `expected` itself, or `expected` rounded to as many significant digits as it shows."""
    value = evaluate(parse(typed, {}), {})
    if "/" in typed or value == expected:
        return value == expected
    digits = len(typed.replace(".", "").lstrip("0"))
    return digits >= 2 and value == float(f"{expected:.{digits - 1}e}")


def test_source_lines_give_no_answer():
    """Does no statement's Source line state an answer (a count, a rounded value, a ratio)?"""
    numbers = [(f, k, v) for f, k, v in ANSWERS if isinstance(v, float) or isinstance(v, int) and v >= 100]
    found = [
        f"{where}: {token} is {folder} {key}"
        for where, line in source_lines()
        for token in SOURCE_NUMBER.findall(line)
        if "." in token or "/" in token or len(token) >= 3  # small integers are item and step numbers
        for folder, key, value in numbers
        if rounds_to(token, value)
    ]
    assert not found, found


def test_source_lines_are_found():
    """Does every statement have a Source line in English and one in Chinese?"""
    lines = source_lines()
    for folder in EXERCISES:
        assert sum(where.startswith(f"{folder.name}/") for where, _ in lines) == 2, folder.name


# "seed 004", "seeds 001 and 003", "种子 000": file names of the chapter's sources, which no student has.
SEED_NAME = re.compile(r"\bseeds? 0\d\d\b|种子 ?0\d\d", re.IGNORECASE)


def test_sources_are_named_as_a_reader_knows_them():
    """Do statements, stubs, public checks and hidden feedback name the textbook, lecture 16, the notes
    and the answer key, never the seed files?"""
    files = [p for p in (ROOT / "exercises").rglob("*") if p.is_file() and p.suffix in (".md", ".toml", ".py")]
    files += layout.all_checks(ROOT)
    found = [
        f"{p.relative_to(ROOT)}:{n}: {m.group()}"
        for p in files
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for m in SEED_NAME.finditer(line)
    ]
    assert not found, found


@pytest.mark.parametrize("folder", sorted(p.name for p in (ROOT / "solutions").iterdir() if p.is_dir()))
def test_references_name_their_sources_as_a_reader_knows_them(folder):
    """Do the references' comments name the textbook and the answer key, never the seed files (what a TA reads)?"""
    found = [
        f"{p.name}:{n}: {m.group()}"
        for p in sorted((ROOT / "solutions" / folder).iterdir())
        if p.is_file()
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        for m in SEED_NAME.finditer(line)
    ]
    assert not found, found


def statement(folder: str) -> tuple[str, str]:
    """The English and the Chinese part of a statement."""
    english, chinese = (ROOT / "exercises" / folder / "README.md").read_text(encoding="utf-8").split("\n## 中文", 1)
    return english, chinese


def test_ex08_states_what_the_grader_does():
    """Does ex08's statement give, in both languages, the file limits the grader enforces, say that one shared lr
    is this exercise's simplification, and cite answer-key item 9 for equal_params_shows?"""
    english, chinese = statement("ex08_delayed_copy")
    assert f"{HANDIN_FILE_BYTES:,} bytes" in english and f"{HANDIN_FILE_BYTES:,} 字节" in chinese
    assert f"{MAX_SHEET_BYTES // 1024} KiB" in english and f"{MAX_SHEET_BYTES // 1024} KiB" in chinese
    assert "One shared lr is this exercise's simplification" in english and "只用一个共享学习率是本题的简化" in chinese
    assert "`equal_params_shows` (answer-key item 9)" in english and "`equal_params_shows`（参考答案第 9 题）" in chinese


def test_ex10_summary_counts_are_counts_in_both_languages():
    """Does ex10's statement say, in both languages, that runs, diverged and failed are how many rows, not rows?"""
    english, chinese = statement("ex10_length_sweep")
    assert "how many rows that `(model, length)` has over all lrs" in " ".join(english.split())
    assert "在所有学习率下共有多少行" in "".join(chinese.split())


# -- points ------------------------------------------------------------------------------------------


def table_points(text: str, header: str) -> list[float]:
    """The last column of every Markdown table whose header row ends in `header`, as numbers."""
    points, inside = [], False
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.startswith("|") else None
        if cells is None:
            inside = False
        elif cells[-1] == header:
            inside = True
        elif inside and not set(cells[-1]) <= set("-: "):
            points.append(float(cells[-1]))
    return points


def check_points(exercise) -> float:
    """The sum of @check(points=...) over the exercise's hidden checks."""
    tree = ast.parse(layout.checks(ROOT, exercise.id).read_text(encoding="utf-8"))
    return sum(
        keyword.value.value
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        for decorator in node.decorator_list
        if isinstance(decorator, ast.Call) and getattr(decorator.func, "id", None) == "check"
        for keyword in decorator.keywords
        if keyword.arg == "points"
    )


@pytest.mark.parametrize("exercise", COURSE.exercises, ids=lambda e: e.id)
def test_points_tables_agree_with_the_course_and_the_checks(exercise):
    """Do the statement's title and its English and Chinese points tables add up to course.toml's points,
    and do the hidden checks award exactly that, less the written answer's points (its rubric's)?"""
    english, chinese = statement(exercise.folder)
    assert f"({exercise.points:g} points)" in english.splitlines()[0]
    assert sum(table_points(english, "points")) == pytest.approx(exercise.points)
    assert sum(table_points(chinese, "分值")) == pytest.approx(exercise.points)
    assert check_points(exercise) == pytest.approx(exercise.checked_points)


@pytest.mark.parametrize("exercise", [e for e in COURSE.exercises if e.rubric], ids=lambda e: e.id)
def test_statements_show_the_rubric(exercise):
    """Does the statement show its rubric.toml, item for item with its points, and every reusable comment, in English
    and in Chinese, and ask for the written answer the rubric marks?"""
    rubric = exercise.rubric
    for part, language, header in zip(statement(exercise.folder), ("en", "zh"), ("item points", "细则分值")):
        rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in part.splitlines() if line.startswith("| `")]
        shown = {cells[0].strip("`"): (cells[1], float(cells[-1].replace("−", "-"))) for cells in rows if len(cells) == 3}
        assert shown == {i.id: (i.description.render(language), i.points) for i in rubric.items}, language
        assert f"| {header} |" in part and f"`{rubric.file}`" in part
        assert all(f"- `{c.id}`: {c.text.render(language)}" in part for c in rubric.comments), language


def test_course_readme_table_agrees_with_the_course():
    """Does the top README's exercise table give each exercise course.toml's points?"""
    row = re.compile(r"\| (ex\d\d) \| `\w+/` \|.*\| ([\d.]+) \|")
    table = dict(m.groups() for m in map(row.fullmatch, (ROOT / "README.md").read_text(encoding="utf-8").splitlines()) if m)
    assert {id: float(points) for id, points in table.items()} == {e.id: e.points for e in COURSE.exercises}


# -- choice items ------------------------------------------------------------------------------------


def choice_items() -> list[tuple[str, str, str, dict, dict, dict]]:
    """(folder, key, the key's letter, stub options, English options, Chinese options) of every multiple-choice item."""
    items = []
    for sheet in sorted((ROOT / "solutions").glob("*/answers.toml")):
        folder = sheet.parent.name
        stub = sheet_choices((ROOT / "exercises" / folder / "answers.toml").read_text(encoding="utf-8"))
        english, chinese = (statement_choices(part) for part in statement(folder))
        for key, answer in tomllib.loads(sheet.read_text(encoding="utf-8")).items():
            if isinstance(answer, str) and re.fullmatch(r"[A-D]", answer):
                items.append((folder, key, answer, stub.get(key, ("", {})), english.get(key, ("", {})), chinese.get(key, ("", {}))))
    return items


CHOICES = choice_items()


def test_choice_items_are_found_in_stub_and_statement():
    """Does every multiple-choice key have its four options A–D in the stub's comments and in the statement's
    English and Chinese parts, the stub worded as the English statement?"""
    assert len(CHOICES) >= 8
    for folder, key, _, stub, english, chinese in CHOICES:
        assert set(stub[1]) == set(english[1]) == set(chinese[1]) == set("ABCD"), (folder, key)
        assert stub[1] == english[1], f"{folder} {key}: the stub words its options otherwise than README.md"


def longest(options: dict[str, str]) -> set[str]:
    most = max(len(text) for text in options.values())
    return {letter for letter, text in options.items() if len(text) == most}


@pytest.mark.parametrize("part", [4, 5], ids=["English", "Chinese"])
def test_the_key_is_rarely_the_longest_option(part):
    """In each language, is the key the longest option (or one of the longest) in at most a third of the choice items?"""
    keyed = [f"{item[0]} {item[1]}" for item in CHOICES if item[2] in longest(item[part][1])]
    assert len(keyed) <= len(CHOICES) / 3, keyed


# Words that make a claim absolute, and words that give a reason: a key that is the only option without one (or the
# distractors alone argued with "since" and "because") is found by test-taking alone.
ABSOLUTE_EN = re.compile(
    r"\b(?:all|alone|always|any|clearly|completely|consistently|entirely|every|everything|must|"
    r"never|no|none|nothing|only|simply|solely|whatever|whole)\b|\bthe (?:same|more)\b",
    re.IGNORECASE,
)
ABSOLUTE_ZH = re.compile(
    "任何|总是|从不|从来|必须|必不可少|只|仅|所有|一切|永远|始终|一贯|完全|唯一|一定|绝不|全部|没有一个|毫无|什么也|都不|一律|每个|明显|相同|越.{0,8}越"
)
REASON_EN = re.compile(r"\b(?:since|because|so|as|hence)\b", re.IGNORECASE)
REASON_ZH = re.compile("因为|所以|由于|因此|故")
CUE_WORDS = {"English absolutes": (4, ABSOLUTE_EN), "Chinese absolutes": (5, ABSOLUTE_ZH), "English reasons": (4, REASON_EN), "Chinese reasons": (5, REASON_ZH)}


def free_of(options: dict[str, str], pattern: re.Pattern) -> set[str]:
    return {letter for letter, text in options.items() if not pattern.search(text)}


@pytest.mark.parametrize(("part", "pattern"), CUE_WORDS.values(), ids=CUE_WORDS)
def test_the_key_is_rarely_the_only_option_without_a_cue_word(part, pattern):
    """In each language, is the key the only option free of absolute words ("any", "never", "must", "only"; "任何",
    "必须", "只" …), or the only one that gives no reason ("since", "because", "so"; "因为", "所以" …), in at most a
    third of the choice items – distractors hedged as carefully as the key, keys argued as often as distractors?"""
    cued = [f"{item[0]} {item[1]}" for item in CHOICES if free_of(item[part][1], pattern) == {item[2]}]
    assert len(cued) <= len(CHOICES) / 3, cued


def test_the_cue_word_detectors_see_cue_words():
    """Do the detectors find an absolute claim and a reason clause in either language, and leave a hedged, bare claim
    alone?"""
    options = {"A": "any advantage comes from the gates alone", "B": "the cells compare at one width", "C": "GRU 一定更好", "D": "结论适用于这个任务"}
    assert free_of(options, ABSOLUTE_EN) == {"B", "C", "D"}
    assert free_of(options, ABSOLUTE_ZH) == {"A", "B", "D"}
    options = {
        "A": "the cells differ, so the table says little",
        "B": "the cells compare at one width",
        "C": "因为预算相同，差别来自门",
        "D": "结论适用于这个任务",
    }
    assert free_of(options, REASON_EN) == {"B", "C", "D"}
    assert free_of(options, REASON_ZH) == {"A", "B", "D"}


# Words that hold a claim back ("says little", "not necessarily", "holds only for"; "说明不了多少", "未必", "只适用于"): a key
# that is the only cautious option among confident distractors is found by test-taking alone (issue 28 §3).
CAUTIOUS_EN = re.compile(r"\b(?:little|not necessarily|need not|on its own|holds only|only for)\b", re.IGNORECASE)
CAUTIOUS_ZH = re.compile("不大|不了多少|没有多少|未必|不一定|只适用|仅适用|单看|很少")
CAUTIOUS = {"English": (4, CAUTIOUS_EN), "Chinese": (5, CAUTIOUS_ZH)}


def cautious(options: dict[str, str], pattern: re.Pattern) -> set[str]:
    return {letter for letter, text in options.items() if pattern.search(text)}


@pytest.mark.parametrize(("part", "pattern"), CAUTIOUS.values(), ids=CAUTIOUS)
def test_the_key_is_never_the_only_cautious_option(part, pattern):
    """In each language, is a key that holds its claim back never the only option that does, so that caution does not
    point at it?"""
    cued = [f"{item[0]} {item[1]}" for item in CHOICES if cautious(item[part][1], pattern) == {item[2]}]
    assert not cued, cued


# The items issue 28 found with the key the only cautious option (ex10's key is cautious in what it declines to
# conclude, which no word list sees): each has a cautious wrong option now.
CAUTIOUS_KEYS = [("ex08_delayed_copy", "equal_params_shows"), ("ex10_length_sweep", "time_vs_length"), ("ex11_concepts", "choice_greff_2015")]


@pytest.mark.parametrize(("part", "pattern"), CAUTIOUS.values(), ids=CAUTIOUS)
def test_items_with_a_cautious_key_have_a_cautious_distractor(part, pattern):
    """In each language, does each item whose key is cautious have a wrong option that is cautious too?"""
    items = {(folder, key): (answer, parts[part - 3][1]) for folder, key, answer, *parts in CHOICES}
    bare = [item for item in CAUTIOUS_KEYS if not cautious(items[item][1], pattern) - {items[item][0]}]
    assert not bare, bare


def test_the_caution_detectors_see_caution():
    """Do the detectors find a claim held back in either language, and leave a confident claim alone (issue 28's
    equal_params_shows: only its key was cautious)?"""
    options = {
        "A": "the budget is held equal, so the result holds only for this device",
        "B": "they should run at about the same speed",
        "C": "the table says little on its own",
        "D": "the GRU is likely to come out ahead",
    }
    assert cautious(options, CAUTIOUS_EN) == {"A", "C"}
    options = {"A": "结论只适用于这个设备", "B": "它们的运行速度应当大致相同", "C": "单看这张表说明不了多少", "D": "GRU 多半会更好"}
    assert cautious(options, CAUTIOUS_ZH) == {"A", "C"}


def test_every_wrong_option_is_in_its_exercise_s_bank():
    """Does each exercise's bank of mistakes answer every wrong option of its multiple-choice items, so that each
    distractor is proved to lose the point with its misconception named (tests/test_mutants.py)?"""
    from mutants import ALL

    folder_of = {e.id: e.folder for e in COURSE.exercises}
    banked = set()
    for mutant in ALL:
        if mutant.file == "answers.toml":
            try:
                answered = tomllib.loads(mutant.new)
            except tomllib.TOMLDecodeError:
                continue
            banked |= {(folder_of[mutant.exercise], key, str(value).strip().upper()) for key, value in answered.items()}
    missing = [(folder, key, letter) for folder, key, answer, *_ in CHOICES for letter in "ABCD" if letter != answer and (folder, key, letter) not in banked]
    assert not missing, missing


def test_keys_spread_over_the_letters():
    """Does no letter hold more than half of the choice items' keys?"""
    letters = [answer for _, _, answer, *_ in CHOICES]
    assert max(letters.count(letter) for letter in "ABCD") <= len(letters) / 2, letters


def test_true_false_parts_have_both_values():
    """Does every sheet with true/false items have true ones and false ones?"""
    for sheet in sorted((ROOT / "solutions").glob("*/answers.toml")):
        values = {v for v in tomllib.loads(sheet.read_text(encoding="utf-8")).values() if isinstance(v, bool)}
        assert values in (set(), {True, False}), sheet.parent.name


def words(text: str) -> list[str]:
    return re.findall(r"[\w′]+", text.lower())


def shared_run(a: str, b: str, n: int = 4) -> str:
    """A run of `n` words that both texts hold, or ""."""
    runs = {" ".join(w) for w in zip(*(words(a)[i:] for i in range(n)))}
    return next((" ".join(w) for w in zip(*(words(b)[i:] for i in range(n))) if " ".join(w) in runs), "")


def test_no_stem_gives_its_key_away():
    """Does no question's stem share a run of four words with its key option (a stem that answers itself)?"""
    found = [(folder, key, run) for folder, key, answer, _, (stem, options), _ in CHOICES if (run := shared_run(stem, options[answer]))]
    assert not found, found


CJK_CHAR = "\u4e00-\u9fff"
CLOSING = "。；：！？）」』”、，|`*"


def test_chinese_typography():
    """In every statement's Chinese part, is there no space between two Chinese characters and no sentence broken
    after a short line (which renders as a gap in the middle of a sentence)?"""
    found = []
    for folder in EXERCISES:
        lines = statement(folder.name)[1].splitlines()
        for line, after in zip(lines, lines[1:] + [""]):
            if re.search(rf"[{CJK_CHAR}，。；：、）] +[{CJK_CHAR}（]", line):
                found.append(f"{folder.name}: a space between Chinese characters: {line.strip()[:40]}")
            prose = re.search(rf"[{CJK_CHAR}]", line) and not line.lstrip().startswith(("|", "#", "-", "```"))
            if prose and len(line.strip()) < 30 and line.rstrip()[-1] not in CLOSING and re.match(rf"[{CJK_CHAR}]", after):
                found.append(f"{folder.name}: a sentence broken after a short line: {line.strip()}")
    assert not found, found


RESPECTIVELY = re.compile(r"\brespectively\b|分别")
PAIR = re.compile(r" ?/ ")  # "X / Y"; Chinese "（…）/ Y"


def test_respectively_stems_have_paired_options():
    """Is every option of a stem that asks about two things "respectively" written as one pair "X / Y", in both
    languages, so that the key is not the only option in the stem's form?"""
    found = [
        f"{folder} {key} {language} {letter}"
        for folder, key, _, _, *parts in CHOICES
        for language, (stem, options) in zip(("English", "Chinese"), parts)
        if RESPECTIVELY.search(stem)
        for letter, text in options.items()
        if len(PAIR.findall(text)) != 1
    ]
    assert not found, found


def true_false_statements(text: str) -> dict[str, str]:
    """{key: statement} of a statement's true/false items (one language): table rows "| `key` | … "statement" …"."""
    return {m.group(1): m.group(2) for m in re.finditer(r'^\| `(\w+)` \|[^"|]*"([^"]+)"', text, re.MULTILINE)}


TRUE_FALSE = [
    (sheet.parent.name, {k: v for k, v in tomllib.loads(sheet.read_text(encoding="utf-8")).items() if isinstance(v, bool)})
    for sheet in sorted((ROOT / "solutions").glob("*/answers.toml"))
]
TRUE_FALSE = [(folder, keys) for folder, keys in TRUE_FALSE if keys]


@pytest.mark.parametrize(("folder", "keys"), TRUE_FALSE, ids=[folder[:4] for folder, _ in TRUE_FALSE])
def test_true_statements_are_not_the_longest(folder, keys):
    """In each language, are the true statements of a true/false part other than exactly its longest ones (so that
    "the longest are true" does not score)?"""
    true = {key for key, value in keys.items() if value}
    for language, text in zip(("English", "Chinese"), statement(folder)):
        found = true_false_statements(text)
        assert set(found) == set(keys), (folder, language, sorted(set(keys) ^ set(found)))
        longest_n = set(sorted(found, key=lambda k: len(found[k]), reverse=True)[: len(true)])
        assert longest_n != true, f"{folder} {language}: the {len(true)} longest statements are exactly the true ones"
