"""`grade similarity`: a copy disguised by renaming, re-commenting and reordering ranks first among independent
solutions, and so does one padded with statements that do nothing; what only the stub shares scores nothing, a huge
file is compared in part and a broken one by its text, both said, entries are read as grade batch reads them and never run, past
terms are references, shared wrong answers are found by the course's judge, and every output escapes student text."""

import ast
import csv
import io
import re
import sys
import textwrap
import tokenize
import zipfile
from pathlib import Path

import nbformat
import pytest
from click.testing import CliRunner
from test_handins import ENTRIES

import browser
from conftest import ROOT
from grader import api
from grader.cli import main
from mutants import ex05

pytestmark = pytest.mark.slow  # classes compared, chromium

STUB = (ROOT / "exercises" / "ex05_gated_steps" / "gated.py").read_text()
REFERENCE = (ROOT / "solutions" / "ex05_gated_steps" / "gated.py").read_text()
SHEET = (ROOT / "solutions" / "ex01_cell_state" / "answers.toml").read_text()
THRESHOLD = 0.5

# Two more independent solutions, as bodies a student writes into the stub.
B_LSTM = """\
if len(x.shape) != 2:
    raise ValueError("x should be a matrix")
if len(h.shape) != 2:
    raise ValueError("h should be a matrix")
if tuple(c.shape) != tuple(h.shape):
    raise ValueError("c and h differ in shape")
if x.size(0) != h.size(0):
    raise ValueError("batch mismatch")
width = x.size(1) + h.size(1)
gates = {}
for key, weight, bias in [("i", W_i, b_i), ("f", W_f, b_f), ("o", W_o, b_o), ("candidate", W_c, b_c)]:
    if list(weight.shape) != [h.size(1), width] or list(bias.shape) != [h.size(1)]:
        raise ValueError(f"bad shape for the {key} parameters")
    pre = torch.addmm(bias, torch.hstack((x, h)), weight.t())
    gates[key] = torch.tanh(pre) if key == "candidate" else torch.sigmoid(pre)
gates["c"] = gates["f"] * c + gates["i"] * gates["candidate"]
gates["h"] = gates["o"] * gates["c"].tanh()
return gates
"""

B_GRU = """\
if x.dim() != 2 or h.dim() != 2 or x.size(0) != h.size(0):
    raise ValueError("x and h must be matrices with the same number of rows")
n_in, n_hid = x.size(1), h.size(1)
expected = {"W": (n_hid, n_in), "U": (n_hid, n_hid), "b": (n_hid,)}
for label, t in zip(["W", "U", "W", "U", "W", "U", "b", "b", "b"], [W_z, U_z, W_r, U_r, W_h, U_h, b_z, b_r, b_h]):
    if tuple(t.shape) != expected[label]:
        raise ValueError(f"a {label} parameter has shape {tuple(t.shape)}")
update = torch.sigmoid(torch.matmul(x, W_z.t()) + torch.matmul(h, U_z.t()) + b_z)
reset = torch.sigmoid(torch.matmul(x, W_r.t()) + torch.matmul(h, U_r.t()) + b_r)
proposal = torch.tanh(torch.matmul(x, W_h.t()) + torch.matmul(reset * h, U_h.t()) + b_h)
new_h = torch.lerp(proposal, h, update)
return {"z": update, "r": reset, "candidate": proposal, "h": new_h}
"""

C_LSTM = """\
try:
    batch, d_x = x.shape
    batch_h, d_h = h.shape
except ValueError:
    raise ValueError("x and h have to be 2-D") from None
if batch != batch_h or c.shape != h.shape:
    raise ValueError("inconsistent batch or cell shape")
for W in (W_i, W_f, W_o, W_c):
    if W.shape != (d_h, d_x + d_h):
        raise ValueError("weight of the wrong shape")
for b in (b_i, b_f, b_o, b_c):
    if b.shape != (d_h,):
        raise ValueError("bias of the wrong shape")

def affine(W: Tensor, b: Tensor) -> Tensor:
    return x @ W[:, :d_x].T + h @ W[:, d_x:].T + b

input_gate = 1 / (1 + torch.exp(-affine(W_i, b_i)))
forget_gate = 1 / (1 + torch.exp(-affine(W_f, b_f)))
output_gate = 1 / (1 + torch.exp(-affine(W_o, b_o)))
g = torch.tanh(affine(W_c, b_c))
cell = forget_gate * c + input_gate * g
return dict(i=input_gate, f=forget_gate, o=output_gate, candidate=g, c=cell, h=output_gate * torch.tanh(cell))
"""

C_GRU = """\
if x.ndim != 2 or h.ndim != 2:
    raise ValueError("2-D inputs needed")
if x.shape[0] != h.shape[0]:
    raise ValueError("batch sizes differ")
d_in, d_hid = x.shape[1], h.shape[1]
if any(w.shape != (d_hid, d_in) for w in (W_z, W_r, W_h)):
    raise ValueError("W_* shape")
if any(u.shape != (d_hid, d_hid) for u in (U_z, U_r, U_h)):
    raise ValueError("U_* shape")
if any(b.shape != (d_hid,) for b in (b_z, b_r, b_h)):
    raise ValueError("b_* shape")
z = 1 / (1 + torch.exp(-(torch.einsum("bi,hi->bh", x, W_z) + torch.einsum("bj,hj->bh", h, U_z) + b_z)))
r = 1 / (1 + torch.exp(-(torch.einsum("bi,hi->bh", x, W_r) + torch.einsum("bj,hj->bh", h, U_r) + b_r)))
cand = torch.tanh(torch.einsum("bi,hi->bh", x, W_h) + torch.einsum("bj,hj->bh", r * h, U_h) + b_h)
return {"z": z, "r": r, "candidate": cand, "h": z * h + (1 - z) * cand}
"""


def filled(lstm: str, gru: str) -> str:
    """The stub with both bodies written in, as a student fills it."""
    text = STUB.replace('    raise NotImplementedError("ex05: implement lstm_step")\n', textwrap.indent(lstm, "    ") + "\n")
    return text.replace('    raise NotImplementedError("ex05: implement gru_step")\n', textwrap.indent(gru, "    ") + "\n")


RENAMED = {
    "_check_states": "_validate",
    "_check_weight": "_expect_shape",
    "u": "stacked",
    "c_new": "cell",
    "h_new": "hidden",
    "d_h": "hid",
    "d": "width",
    "d_x": "n_in",
    "name": "label",
    "w": "param",
    "b": "bias",
    "z": "upd",
    "r": "rst",
    "i": "gate_in",
    "f": "keep",
    "o": "gate_out",
    "candidate": "proposal",
}


def disguised(source: str) -> str:
    """A copy as a student hides one: functions in another order, docstrings reworded, a comment on every assignment,
    every name renamed (the tokens rewritten, so the code stays Python)."""
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    functions = {node.name: "".join(lines[node.lineno - 1 : node.end_lineno]) for node in tree.body if isinstance(node, ast.FunctionDef)}
    head = '"""My ex05: LSTM and GRU cells, one step each."""\n'  # the module docstring, reworded
    imports = "".join(lines[n.lineno - 1] for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom))
    body = "\n\n".join(functions[n] for n in ("gru_step", "lstm_step", "_check_weight", "_check_states"))
    body = re.sub(r'"""(.*?)"""', lambda m: '"""' + m.group(1).replace("One", "A single").replace("step", "update") + '"""', body, flags=re.S)
    body = re.sub(r"^(    [a-z_]+ = .*)$", r"\1  # worked out on paper first", body, flags=re.M)
    tokens = [
        (t.type, RENAMED.get(t.string, t.string) if t.type == tokenize.NAME else t.string)
        for t in tokenize.generate_tokens(io.StringIO(f"{head}\n{imports}\n\n{body}").readline)
    ]
    return tokenize.untokenize(tokens)


def test_the_disguise_is_still_python_and_no_longer_the_text():
    """Is the disguised copy valid Python that shares no line of the reference's own code (only the stub's lines, and
    brackets)?"""
    copy = disguised(REFERENCE)
    ast.parse(copy)
    shared = {line.strip() for line in REFERENCE.splitlines()} & {line.strip() for line in copy.splitlines()}
    stub = {line.strip() for line in STUB.splitlines()}
    assert all(len(line) <= 3 or line in stub for line in shared), shared - stub


class _NoOps(ast.NodeTransformer):
    """`...` before every statement, a docstring and `pass` opening every function, f-strings as plain strings, every
    local, parameter and helper renamed."""

    def generic_visit(self, node: ast.AST) -> ast.AST:
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                block = [s for statement in block for s in (ast.Expr(ast.Constant(...)), statement)]
                if isinstance(node, ast.FunctionDef) and name == "body":
                    block = [ast.Expr(ast.Constant("Computes what was asked, carefully.")), ast.Pass(), *block]
                setattr(node, name, block)
        return node

    def visit_JoinedStr(self, node: ast.JoinedStr) -> ast.AST:
        return ast.Constant("the inputs have the wrong shape")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self.names.get(node.id, node.id)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self.names.get(node.arg, node.arg)
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self.names.get(node.name, node.name)
        return self.generic_visit(node)

    def __call__(self, source: str) -> str:
        tree = ast.parse(source)
        self.names = {n.id: f"my_{n.id}" for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        self.names |= {a.arg: f"my_{a.arg}" for a in ast.walk(tree) if isinstance(a, ast.arg)}
        self.names |= {f.name: f"my{f.name}" for f in tree.body if isinstance(f, ast.FunctionDef) and f.name.startswith("_")}
        return ast.unparse(ast.fix_missing_locations(self.visit(tree)))


with_no_ops = _NoOps()


def notebook(code: str) -> str:
    return nbformat.writes(nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)]))


PWNED = Path("/tmp/grade-similarity-ran-this")
RUNS = f"open({str(PWNED)!r}, 'w').write('ran')\nimport sys\nsys.exit(3)\n"  # a file that must never be run


@pytest.fixture(scope="module")
def klass(tmp_path_factory) -> Path:
    """ada the reference, bob its disguised copy (zipped), cyd and dan independent (dan as a notebook), eve and fay the
    stub as given, gus a file that would write where it must not if it ran; on ex01, answer sheets."""
    root = tmp_path_factory.mktemp("class")

    def hand_in(name: str, gated: str | None, sheet: str | None = None) -> Path:
        if gated is not None:
            (root / name / "ex05_gated_steps").mkdir(parents=True)
            (root / name / "ex05_gated_steps" / "gated.py").write_text(gated)
        if sheet is not None:
            (root / name / "ex01_cell_state").mkdir(parents=True, exist_ok=True)
            (root / name / "ex01_cell_state" / "answers.toml").write_text(sheet)
        return root / name

    hand_in("ada", REFERENCE, SHEET)
    source = tmp_path_factory.mktemp("bob-src")
    (source / "ex05_gated_steps").mkdir()
    (source / "ex05_gated_steps" / "gated.py").write_text(disguised(REFERENCE))
    with zipfile.ZipFile(root / "bob.zip", "w") as zf:
        zf.write(source / "ex05_gated_steps" / "gated.py", "ex05_gated_steps/gated.py")
    hand_in("cyd", filled(B_LSTM, B_GRU), WRONG_TWICE)
    (root / "dan").mkdir()
    (root / "dan" / "ex05.ipynb").write_text(notebook(filled(C_LSTM, C_GRU)))
    hand_in("eve", STUB, WRONG_TWICE.replace(' "0.6*tanh(1.065)"', ' "0.6 * tanh(1.065)"'))
    hand_in("fay", STUB, WRONG_ONCE)
    hand_in("gus", STUB + "\n" + RUNS)
    return root


# ex01's sheet (the statement's numbers: c_t = 1.065, h_t = 0.6*tanh(1.065)) with two wrong answers (c_t = 1.52, and
# the missing tanh: h_t_formula = "o*c_t"), and h_t as an exact expression (right, written alike by cyd and eve: not a
# shared *wrong* answer).
C_T, H_T = re.compile(r"^c_t = .*$", re.MULTILINE), re.compile(r"^h_t = .*$", re.MULTILINE)
WRONG_ONCE = C_T.sub("c_t = 1.52", SHEET)
WRONG_TWICE = H_T.sub('h_t = "0.6*tanh(1.065)"', WRONG_ONCE.replace('h_t_formula = "o*tanh(c_t)"', 'h_t_formula = "o*c_t"'))


@pytest.fixture(scope="module")
def compared(klass, tmp_path_factory):
    course = api.course(root=ROOT)
    out = tmp_path_factory.mktemp("similar")
    result = api.similarity(course=course, exercises=api.select(course, ["ex01", "ex05"]), submissions=klass, out=out, threshold=THRESHOLD)
    return result, out


def ranked(result) -> list[tuple[str, str, float]]:
    return [(p.student_a, p.student_b, p.similarity) for p in result.pairs if p.exercise == "ex05"]


def test_a_disguised_copy_ranks_first_above_the_threshold(compared):
    """Among independent solutions, does the renamed, re-commented, reordered copy rank first, at or above 0.5?"""
    result, _ = compared
    (a, b, similarity), *rest = ranked(result)
    assert {a, b} == {"ada", "bob"} and similarity >= THRESHOLD, ranked(result)
    assert all(s < similarity for _, _, s in rest)


def test_what_only_the_stub_shares_scores_below_the_threshold(compared):
    """Do the students who handed in the stub match nobody at or above the threshold, each other included?"""
    result, _ = compared
    stub_only = {"eve", "fay", "gus"}
    assert all(s < THRESHOLD for a, b, s in ranked(result) if {a, b} & stub_only), ranked(result)
    assert not any({a, b} <= stub_only for a, b, _ in ranked(result))


def test_independent_solutions_stay_below_the_threshold(compared):
    """Do the three independent solutions score below the threshold against one another?"""
    result, _ = compared
    independent = {"ada", "cyd", "dan"}
    pairs = [(a, b, s) for a, b, s in ranked(result) if {a, b} <= independent]
    assert pairs and all(s < THRESHOLD for _, _, s in pairs), pairs


def test_entries_are_read_as_batch_reads_them_and_never_run(compared):
    """Are a zip and a notebook read like folders, and did the file that writes when run never run?"""
    result, _ = compared
    students = {s for a, b, _ in ranked(result) for s in (a, b)}
    assert {"bob", "dan"} <= students and result.students == 7
    assert not PWNED.exists()


def test_two_identical_wrong_answers_make_a_pair(compared):
    """Are cyd and eve, with the same two wrong answers, listed with them – and fay (one of them) and the right
    answer they wrote alike not counted?"""
    result, _ = compared
    assert [(s.student_a, s.student_b) for s in result.shared] == [("cyd", "eve")]
    assert dict(result.shared[0].answers) == {"c_t": "1.52", "h_t_formula": "o*c_t"}


def test_the_outputs_rank_pairs_and_escape_nothing_into_markup(compared):
    """Is similarity.csv sorted most similar first with the asked columns, and shared_answers.csv written?"""
    _, out = compared
    rows = list(csv.DictReader(io.StringIO((out / "similarity.csv").read_text())))
    assert list(rows[0]) == ["exercise", "file", "student_a", "student_b", "similarity", "text", "ast", "shared_lines"]
    assert [float(r["similarity"]) for r in rows] == sorted((float(r["similarity"]) for r in rows), reverse=True)
    assert {rows[0]["student_a"], rows[0]["student_b"]} == {"ada", "bob"} and int(rows[0]["shared_lines"]) > 10
    assert all(float(r["similarity"]) == max(float(r["text"]), float(r["ast"] or 0)) for r in rows)
    assert "cyd,eve,2" in (out / "shared_answers.csv").read_text()
    assert {p.stat().st_mode & 0o777 for p in out.iterdir()} == {0o600} and out.stat().st_mode & 0o777 == 0o700


def hand_in_all(folder: Path, files: dict[str, str]) -> Path:
    """A class folder: each student's text as their ex05 gated.py."""
    for name, text in files.items():
        (folder / name / "ex05_gated_steps").mkdir(parents=True)
        (folder / name / "ex05_gated_steps" / "gated.py").write_text(text)
    return folder


def test_statements_that_do_nothing_hide_no_copy(tmp_path):
    """Does the reference padded with `...` before every statement, a docstring and `pass` in every function, plain
    strings for its f-strings and every local renamed (the text score drops to about 0.2) score 0.8 or more by its
    syntax tree – alone and on top of the reordering disguise – while an independent solution stays below 0.5?"""
    course = api.course(root=ROOT)
    copies = {"ada": REFERENCE, "hal": with_no_ops(REFERENCE), "ivy": with_no_ops(disguised(REFERENCE)), "cyd": filled(B_LSTM, B_GRU)}
    assert "..." in copies["hal"] and "my_d_h" in copies["hal"] and not any(isinstance(n, ast.JoinedStr) for n in ast.walk(ast.parse(copies["hal"])))
    result = api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=hand_in_all(tmp_path / "c", copies), out=tmp_path / "o")
    scores = {(p.student_a, p.student_b): p for p in result.pairs}
    for pair in (("ada", "hal"), ("ada", "ivy"), ("hal", "ivy")):
        assert scores[pair].ast is not None and scores[pair].ast >= 0.8 and scores[pair].similarity >= 0.8, scores[pair]
    assert all(p.similarity < THRESHOLD for p in result.pairs if "cyd" in (p.student_a, p.student_b)), ranked(result)


INDEPENDENT = {
    "ada": REFERENCE,
    "cyd": filled(B_LSTM, B_GRU),
    "dan": filled(C_LSTM, C_GRU),
    **{f"acc{n}": files["gated.py"] for n, files in enumerate(ex05.ACCEPTED.values())},
}


def test_independent_solutions_stay_low_by_text_and_by_syntax_tree(tmp_path):
    """Do five independent right solutions of ex05 (the reference, the two above, the bank's accepted forms) score
    below the threshold against one another by both scores (README: 0.07–0.33 by text, 0.12–0.31 by syntax tree)?"""
    course = api.course(root=ROOT)
    folder = hand_in_all(tmp_path / "c", INDEPENDENT)
    result = api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=folder, out=tmp_path / "o")
    assert len(result.pairs) == 10 and result.notes == [], result.notes
    assert all(p.text < THRESHOLD and p.ast is not None and p.ast < THRESHOLD for p in result.pairs), result.pairs


def test_a_huge_file_is_compared_in_part_and_a_broken_one_by_its_text(tmp_path, monkeypatch):
    """In a class with a 1 MB copy (the reference, then filler whose lines inside brackets start at column 0), a file
    that does not parse and a 1 MB list literal (the workspace's limit is 1 MiB a file), is the copy still found by
    both scores in its first FINGERPRINTED bytes (cut where a statement starts), the broken file scored by its text
    alone, and is each named with why in the result, the page and the printed summary?"""
    from grader import similarity

    course = api.course(root=ROOT)
    filler = "".join(f"def extra_{n}(\nt,\n):\n    return t * {n}\n\n\n" for n in range(30000))
    files = {
        "ada": REFERENCE,
        "big": (REFERENCE + "\n\n" + filler)[:1_000_000],
        "bad": REFERENCE.replace("def gru_step(", "def gru_step(("),
        "lit": "DATA = [\n" + "    1.0,\n" * 100_000 + "]\n",
    }
    folder = hand_in_all(tmp_path / "c", files)
    result = api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=folder, out=tmp_path / "o")
    notes = {n.student: n.why.en for n in result.notes}
    assert set(notes) == {"big", "bad", "lit"} and len([n for n in result.notes if n.student == "lit"]) == 2, notes
    size = len(files["big"].encode())
    assert "fingerprinted its first" in notes["big"] and f"of {size:,} bytes" in notes["big"], notes["big"]
    line = REFERENCE[: REFERENCE.index("def gru_step(")].count("\n") + 1
    assert "does not parse" in notes["bad"] and f"line {line}:" in notes["bad"], notes["bad"]
    scores = {(p.student_a, p.student_b): p for p in result.pairs}
    assert scores["ada", "big"].similarity > 0.95 and scores["ada", "big"].ast is not None and len(scores["ada", "big"].text_b) <= similarity.FINGERPRINTED
    assert scores["ada", "bad"].ast is None and scores["ada", "bad"].similarity == scores["ada", "bad"].text > 0.9
    page = (tmp_path / "o" / "similarity.html").read_text()
    assert "Compared in part" in page and "does not parse" in page and f"of {size:,} bytes" in page
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, ["similarity", str(folder), "--out", str(tmp_path / "o2"), "--exercises", "ex05"])
    assert done.exit_code == 0, done.output
    named = [line for line in done.output.splitlines() if line.startswith("compared in part: ")]
    assert len(named) == 4 and all("ex05 gated.py" in line for line in named), done.output
    assert "4 files compared in part" in done.output


def test_past_terms_are_references_only(klass, tmp_path):
    """With --past, is this class compared with last term's students, and last term's students never with each other?"""
    course = api.course(root=ROOT)
    past = tmp_path / "2024"
    for name in ("old1", "old2"):
        (past / name / "ex05_gated_steps").mkdir(parents=True)
        (past / name / "ex05_gated_steps" / "gated.py").write_text(filled(C_LSTM, C_GRU))
    result = api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=klass, out=tmp_path / "o", past=[past], threshold=THRESHOLD)
    pairs = {(p.student_a, p.student_b): p.similarity for p in result.pairs}
    assert pairs[("dan", "2024/old1")] == pairs[("dan", "2024/old2")] == 1.0
    assert not any(a.startswith("2024/") for a, _ in pairs)
    again = tmp_path / "other" / "2024"  # another term's folder of the same name keeps its students apart
    (again / "old1" / "ex05_gated_steps").mkdir(parents=True)
    (again / "old1" / "ex05_gated_steps" / "gated.py").write_text(REFERENCE)
    both = api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=klass, out=tmp_path / "o", past=[past, again], threshold=THRESHOLD)
    assert {p.student_b for p in both.pairs if p.student_a == "ada"} >= {"2024/old1", "2024#2/old1"}


def test_student_text_is_escaped_in_the_html(tmp_path):
    """Does a student id and code made of HTML stay text in similarity.html, the shared regions marked?"""
    course = api.course(root=ROOT)
    hostile = filled(B_LSTM, B_GRU) + "\n# </pre><script>alert(1)</script>\n"
    for name in ("<b>x", "<i onmouseover=alert(1)>y"):
        (tmp_path / "class" / name / "ex05_gated_steps").mkdir(parents=True)
        (tmp_path / "class" / name / "ex05_gated_steps" / "gated.py").write_text(hostile)
    api.similarity(course=course, exercises=api.select(course, ["ex05"]), submissions=tmp_path / "class", out=tmp_path / "o")
    text = (tmp_path / "o" / "similarity.html").read_text()
    assert "<script>" not in text and "<b>x" not in text and "&lt;b&gt;x" in text and "<i onm" not in text and "<mark>" in text
    assert "&lt;/pre&gt;&lt;script&gt;" in text


@browser.needed
def test_a_browser_opens_the_similarity_report_cleanly(compared):
    """In headless chromium, does similarity.html load with no console message and no network request?"""
    _, out = compared
    seen = browser.visit(out / "similarity.html", height=1200)
    assert seen.console == [] and seen.requests == [], (seen.console, seen.requests)
    assert "ada" in seen.dom and "<mark>" in seen.dom


def test_grade_similarity_prints_the_top_pairs(klass, tmp_path, monkeypatch):
    """Does `grade similarity` print the most similar pair first and say where the outputs are, exit 0?"""
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, ["similarity", str(klass), "--out", str(tmp_path / "o"), "--exercises", "ex05"])
    assert done.exit_code == 0, done.output
    first = done.output.splitlines()[0]
    assert "ex05" in first and "ada" in first and "bob" in first
    assert f"outputs in {tmp_path / 'o'}" in done.output


def test_grade_similarity_refuses_clearly(klass, tmp_path, monkeypatch):
    """Are an unknown exercise, a missing folder and a missing copydetect each a clear usage error, no traceback?"""
    monkeypatch.chdir(ROOT)
    run = lambda *args: CliRunner().invoke(main, ["similarity", *args, "--out", str(tmp_path / "o")])  # noqa: E731
    unknown = run(str(klass), "--exercises", "ex99")
    assert unknown.exit_code == 2 and "unknown exercise ex99" in unknown.output
    missing = run(str(tmp_path / "nowhere"))
    assert missing.exit_code == 2 and "not a folder of submissions" in missing.output
    monkeypatch.setitem(sys.modules, "copydetect", None)
    without = run(str(klass))
    assert without.exit_code == 2 and "pip install" in without.output and "Traceback" not in without.output


def test_grade_similarity_of_every_exercise_compares_sheets_of_choices(tmp_path, monkeypatch):
    """Does `grade similarity` without --exercises (the README's first command) compare every exercise, ex08's sheet of
    choices among them, and list two students who both chose the same two wrong answers – where it ended, exit 1,
    demanding that ex08's hidden checks declare answers for numbers it has none of?"""
    sheet = (ROOT / "solutions" / "ex08_delayed_copy" / "answers.toml").read_text()
    wrong = sheet.replace('equal_width_shows = "D"', 'equal_width_shows = "B"').replace('equal_params_shows = "A"', 'equal_params_shows = "C"')
    for name in ("ann", "ben"):
        (tmp_path / "class" / name / "ex08_delayed_copy").mkdir(parents=True)
        (tmp_path / "class" / name / "ex08_delayed_copy" / "answers.toml").write_text(wrong)
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, ["similarity", str(tmp_path / "class"), "--out", str(tmp_path / "o")])
    assert done.exit_code == 0, done.output
    shared = list(csv.DictReader(io.StringIO((tmp_path / "o" / "shared_answers.csv").read_text())))
    assert [(r["exercise"], r["student_a"], r["student_b"], r["shared_wrong_answers"]) for r in shared] == [("ex08", "ann", "ben", "2")], shared


def test_the_similarity_outputs_speak_the_course_language(compared):
    """For a zh course, are the printed lines and similarity.html's fixed words Chinese?"""
    from grader import similarity

    result, _ = compared
    printed = "\n".join(similarity.printed(result, language="zh"))
    page = similarity.to_html(result, language="zh")
    assert "相同" in printed and "shared lines" not in printed and "identical wrong answers" not in printed
    assert '<html lang="zh-Hans">' in page and "相似度报告" in page and "Similarity report" not in page


def test_an_output_folder_that_cannot_be_written_is_a_clear_error(klass, tmp_path, monkeypatch):
    """Is --out naming a file a usage error that says so, not a traceback?"""
    monkeypatch.chdir(ROOT)
    (tmp_path / "taken").write_text("a file")
    done = CliRunner().invoke(main, ["similarity", str(klass), "--out", str(tmp_path / "taken"), "--exercises", "ex05"])
    assert done.exit_code == 2 and "cannot write there" in done.output and "Traceback" not in done.output


def test_entries_that_once_ended_the_batch_are_read_or_named(tmp_path, monkeypatch):
    """Over the hand-ins that once ended `grade batch` (corrupt zips, odd names, deep notebooks), does `grade similarity`
    exit 0, naming the entries the batch refused and the file it could not build, no unsafe character in the page?"""
    (tmp_path / "class").mkdir()
    for make, _ in ENTRIES.values():
        make(tmp_path / "class")
    course = api.course(root=ROOT)
    result = api.similarity(course=course, exercises=api.select(course, ["ex01"]), submissions=tmp_path / "class", out=tmp_path / "o")
    unread = dict(result.unread)
    refused = {s for s, (_, status) in ENTRIES.items() if status == "unreadable"}
    assert refused <= set(unread) and set(unread) - refused == {"deep"}, unread  # graded 0 there: its notebook too deep
    assert "ex01.ipynb" in unread["deep"]
    assert "\u202e" not in (tmp_path / "o" / "similarity.html").read_text()
    monkeypatch.chdir(ROOT)
    done = CliRunner().invoke(main, ["similarity", str(tmp_path / "class"), "--out", str(tmp_path / "o"), "--exercises", "ex01"])
    assert done.exit_code == 0, done.output


def test_students_right_for_their_own_numbers_share_no_wrong_answer(tmp_path):
    """With variants on, do fourteen students whose ex02 sheets are each right for their own numbers share no wrong
    answer – while two who both handed in a third student's answers still do?"""
    from dataclasses import replace

    from grader.grading.numbers import reference_sheet
    from grader.variants import Settings, variant_of

    course = replace(api.course(root=ROOT), variants=Settings(enabled=True, salt="test-salt"))
    ex02 = course.exercise("ex02")
    names = [f"s{n:02}" for n in range(14)]

    def hand_in(name: str, owner: str) -> None:
        (tmp_path / "class" / name / ex02.folder).mkdir(parents=True)
        sheet = reference_sheet(ex02, variant_of(course.variants, ex02.variant, owner).params)
        (tmp_path / "class" / name / ex02.folder / "answers.toml").write_text(sheet)

    for name in names:
        hand_in(name, name)
    honest = api.similarity(course=course, exercises=[ex02], submissions=tmp_path / "class", out=tmp_path / "o")
    assert honest.students == 14 and honest.shared == [], [(s.student_a, s.student_b) for s in honest.shared]
    for name in ("x1", "x2"):
        hand_in(name, "s00")  # both hand in s00's numbers' answers: wrong for each of them, and alike
    copied = api.similarity(course=course, exercises=[ex02], submissions=tmp_path / "class", out=tmp_path / "o")
    assert [(s.student_a, s.student_b) for s in copied.shared] == [("x1", "x2")]


def test_answers_the_hidden_check_accepts_within_its_own_tolerance_are_not_wrong(tmp_path):
    """Do two students who both kept σ(1) to three digits in ex02 (within the 2 % its hidden check allows, outside the
    course's 0.1 %) share no wrong answer?"""
    ex02 = api.course(root=ROOT).exercise("ex02")
    k = ex02.variant.default()["k_short"]
    sheet = (ex02.solution_dir / "answers.toml").read_text()
    sheet = re.sub(r"^sigma1_power = .*$", f"sigma1_power = {0.731**k!r}", sheet, flags=re.MULTILINE)
    sheet = re.sub(r"^ratio_bias1_bias0 = .*$", f"ratio_bias1_bias0 = {(0.731 / 0.5) ** k!r}", sheet, flags=re.MULTILINE)
    for name in ("ann", "ben"):
        (tmp_path / "class" / name / ex02.folder).mkdir(parents=True)
        (tmp_path / "class" / name / ex02.folder / "answers.toml").write_text(sheet)
    course = api.course(root=ROOT)
    result = api.similarity(course=course, exercises=[ex02], submissions=tmp_path / "class", out=tmp_path / "o")
    assert result.shared == [], result.shared


def test_the_same_wrong_numbers_typed_otherwise_are_still_shared(tmp_path):
    """Do two students who hand in the same two wrong ex01 numbers – one as `c_t = 1.52` and `h_t = 0.5`, the other as
    `"1.5200"` and `"1/2"`, a copy retyped – still share two identical wrong answers, shown as the first typed them?"""
    course = api.course(root=ROOT)
    ex01 = course.exercise("ex01")
    typed = {"ann": ("1.52", "0.5"), "ben": ('"1.5200"', '"1/2"')}
    for name, (c_t, h_t) in typed.items():
        (tmp_path / "class" / name / ex01.folder).mkdir(parents=True)
        (tmp_path / "class" / name / ex01.folder / "answers.toml").write_text(H_T.sub(f"h_t = {h_t}", C_T.sub(f"c_t = {c_t}", SHEET)))
    result = api.similarity(course=course, exercises=[ex01], submissions=tmp_path / "class", out=tmp_path / "o")
    assert [(s.student_a, s.student_b, s.answers) for s in result.shared] == [("ann", "ben", (("c_t", "1.52"), ("h_t", "0.5")))]
