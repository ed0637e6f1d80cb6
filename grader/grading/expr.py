"""The formulas and numbers students type into answers.toml: safe parsing into an AST, and its evaluation.

Student text is read by a hand-written tokenizer and precedence-climbing parser into a small
immutable AST; it never reaches eval/exec/compile, Python's `ast`, or sympy's string parsers. An AST
is evaluated in floating point with a running bound on its rounding error (the parser folds constants
with it). Whether two ASTs are equivalent is `grader.grading.equivalence`'s to say.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Literal

from grader.text import TextError, one_line

Domain = Literal["real", "positive", "gate", "positive_integer"]
FunctionName = Literal["exp", "log", "sqrt", "tanh", "sigmoid", "abs"]
ConstantName = Literal["pi", "e"]
DOMAINS: tuple[str, ...] = ("real", "positive", "gate", "positive_integer")

MAX_LENGTH = 500  # characters in one answer
MAX_TOKENS = 250
MAX_DEPTH = 50  # nesting of parentheses, braces, signs, exponents and function arguments
MAX_DIGITS = 30  # significant digits in one number literal
MAX_LITERAL_EXPONENT = 300  # |n| in scientific notation such as 1e-3
MAX_EXPONENT = 1000  # |value| of a power's exponent when it is a constant

FUNCTIONS: dict[str, FunctionName | Literal["log10"]] = {  # the names a formula may call; log10(x) is read as log(x)/log(10)
    "exp": "exp",
    "ln": "log",
    "log": "log",
    "sqrt": "sqrt",
    "tanh": "tanh",
    "sigma": "sigmoid",
    "sigmoid": "sigmoid",
    "abs": "abs",
    "log10": "log10",
}
CONSTANTS: tuple[ConstantName, ...] = ("pi", "e")
_EPSILON_ALIASES = ("epsilon", "eps")


class ExpressionError(TextError, ValueError):
    """An answer that cannot be read; `message` (both languages) says what and where."""

    def __init__(self, en: str, zh: str | None = None, *, column: int | None = None):
        super().__init__(en, zh)
        self.column = column


class UnknownSymbolError(ExpressionError):
    """An answer that uses a name the question does not declare (`name` as typed)."""

    def __init__(self, en: str, zh: str, *, column: int, name: str):
        super().__init__(en, zh, column=column)
        self.name = name


class UndefinedError(ArithmeticError):
    """The expression has no finite real value at the given point (log of 0, 1/0, overflow...).

    `certain` is False where floating point cannot tell: an overflow, or an argument that lies within
    its rounding error of the edge of a function's domain (such as a divisor that is 0 only by rounding).
    """

    def __init__(self, message: str, *, certain: bool):
        super().__init__(message)
        self.certain = certain


# --- the AST -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Num:
    """An exact number literal; `approx` is its float value."""

    value: Fraction
    approx: float = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "approx", float(self.value))


@dataclass(frozen=True, slots=True)
class Sym:
    name: str


@dataclass(frozen=True, slots=True)
class Const:
    name: ConstantName


@dataclass(frozen=True, slots=True)
class Neg:
    arg: Expr


@dataclass(frozen=True, slots=True)
class BinOp:
    op: Literal["+", "-", "*", "/", "^"]
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Call:
    func: FunctionName
    arg: Expr


Expr = Num | Sym | Const | Neg | BinOp | Call

_LOG10 = Call("log", Num(Fraction(10)))  # log10(x) is read as ln(x)/ln(10): base-10 logs are a known mistake, not a typo


def free_symbols(expr: Expr) -> set[str]:
    """Names of the declared symbols that `expr` uses."""
    match expr:
        case Sym(name):
            return {name}
        case Neg(arg) | Call(_, arg):
            return free_symbols(arg)
        case BinOp(_, left, right):
            return free_symbols(left) | free_symbols(right)
    return set()


# --- tokens --------------------------------------------------------------------------------------

_DIGITS = frozenset("0123456789")
_LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
_SPACE = frozenset(" \t\r\n")
_NUMBER = re.compile(r"([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_COMMAND = re.compile(r"[A-Za-z]+")
_SUBSCRIPT = re.compile(r"\{([A-Za-z0-9]+)\}")
_FLOAT_LIMIT = Fraction(2) ** 1024  # the first number beyond floating-point range
_SUPERSCRIPTS = {c: d for d, c in enumerate("⁰¹²³⁴⁵⁶⁷⁸⁹")}
_UNICODE: dict[str, tuple[str, str]] = {
    "σ": ("name", "sigma"),
    "ε": ("name", "epsilon"),
    "ϵ": ("name", "epsilon"),
    "π": ("name", "pi"),
    "·": ("op", "*"),
    "⋅": ("op", "*"),
    "×": ("op", "*"),
    "−": ("op", "-"),
    "÷": ("op", "/"),
}
_LATEX: dict[str, tuple[str, str]] = {
    "frac": ("frac", ""),
    "dfrac": ("frac", ""),
    "ln": ("name", "ln"),
    "log": ("name", "log"),
    "exp": ("name", "exp"),
    "tanh": ("name", "tanh"),
    "sigma": ("name", "sigma"),
    "sqrt": ("name", "sqrt"),
    "epsilon": ("name", "epsilon"),
    "varepsilon": ("name", "epsilon"),
    "pi": ("name", "pi"),
    "cdot": ("op", "*"),
    "times": ("op", "*"),
    "div": ("op", "/"),
    "left": ("(", "("),
    "right": (")", ")"),
}
_LATEX_SPACES = frozenset(",;! ")
_CHAR_HINTS: dict[str, tuple[str, str]] = {
    ",": ("write numbers without thousands separators and use '.' for decimals", "数字不要用千位分隔符，小数点请用 '.'"),
    "=": ("write only the expression, without 'name ='", "只写表达式本身，不要写 '名称 ='"),
    "|": ("write abs(x) for an absolute value", "绝对值请写 abs(x)"),
    "[": ("use round parentheses ( )", "请使用圆括号 ( )"),
    "]": ("use round parentheses ( )", "请使用圆括号 ( )"),
}


@dataclass(frozen=True, slots=True)
class _Token:
    kind: str  # "num", "name", "op", "sup", "frac", "(", ")", "{", "}", "end"
    text: str  # as typed, for messages
    column: int  # 1-based
    value: object = None  # Fraction (num), canonical name (name), operator (op), int (sup)


def _where(column: int) -> tuple[str, str]:
    return f" at column {column}", f"（第 {column} 列）"


def _error(en: str, zh: str, column: int, hint: tuple[str, str] = ("", "")) -> ExpressionError:
    """`en`/`zh` say what is wrong; the column follows, then the hint on what to do."""
    where_en, where_zh = _where(column)
    hint_en, hint_zh = (f"; {hint[0]}", f"；{hint[1]}") if hint[0] else ("", "")
    return ExpressionError(en + where_en + hint_en, zh + where_zh + hint_zh, column=column)


def quote(text: str, limit: int = 30) -> str:
    """`text` (a student's) quoted for a message: one line, shortened, unsafe characters replaced (grader.text)."""
    return f"'{one_line(text, limit=limit)}'"


def _describe_char(ch: str) -> str:
    return f"{ascii(ch)} (U+{ord(ch):04X} {unicodedata.name(ch, 'control character')})"


def _bad_char(ch: str, column: int) -> ExpressionError:
    hint = _CHAR_HINTS.get(
        ch,
        (
            "type plain ASCII letters and digits with + - * / ^ ( ), or the listed Unicode/LaTeX forms",
            "请使用普通 ASCII 字母、数字和 + - * / ^ ( )，或说明中列出的 Unicode/LaTeX 写法",
        ),
    )
    desc = _describe_char(ch)
    return _error(f"character {desc} is not allowed", f"不允许使用字符 {desc}", column, hint)


def _tokenize(text: str) -> list[_Token]:
    """Split `text` into tokens, rejecting anything outside the whitelist."""
    tokens: list[_Token] = []
    token: _Token | None
    i = 0
    while i < len(text):
        ch, column = text[i], i + 1
        if ch in _SPACE:
            i += 1
            continue
        if ch in _DIGITS or (ch == "." and text[i + 1 : i + 2] in _DIGITS):
            token, i = _number(text, i)
        elif ch in _LETTERS:
            token, i = _name(text, i)
        elif ch == "\\":
            token, i = _latex(text, i)
        elif text.startswith("**", i):
            token, i = _Token("op", "**", column, "^"), i + 2
        elif ch in "+-*/^":
            token, i = _Token("op", ch, column, ch), i + 1
        elif ch in "(){}":
            token, i = _Token(ch, ch, column), i + 1
        elif ch in _SUPERSCRIPTS or ch == "⁻":
            token, i = _superscript(text, i)
        elif ch in _UNICODE:
            kind, value = _UNICODE[ch]
            token, i = _Token(kind, ch, column, value), i + 1
        else:
            raise _bad_char(ch, column)
        if token is not None:
            tokens.append(token)
        if len(tokens) > MAX_TOKENS:
            raise _error(f"the answer has more than {MAX_TOKENS} tokens", f"答案超过 {MAX_TOKENS} 个记号", column, ("simplify it", "请化简"))
    tokens.append(_Token("end", "end of answer", len(text) + 1))
    return tokens


def _number(text: str, i: int) -> tuple[_Token, int]:
    """A decimal literal such as 12, 0.5, .5 or 1e-3, kept exact."""
    match = _NUMBER.match(text, i)
    assert match is not None  # the pattern matches the digit or '.' that brought us here
    whole, frac, exponent = match.group(1), match.group(2) or "", match.group(3)
    column, literal = i + 1, match.group(0)
    if len(whole.lstrip("0")) + len(frac) > MAX_DIGITS:
        raise _error(f"number {quote(literal)} has more than {MAX_DIGITS} digits", f"数字 {quote(literal)} 超过 {MAX_DIGITS} 位", column)
    power = 0
    if exponent is not None:
        if len(exponent.lstrip("+-0")) > 4 or abs(int(exponent)) > MAX_LITERAL_EXPONENT:
            raise _error(
                f"number {quote(literal)} has an exponent beyond ±{MAX_LITERAL_EXPONENT}", f"数字 {quote(literal)} 的指数超出 ±{MAX_LITERAL_EXPONENT}", column
            )
        power = int(exponent)
    value = Fraction(int(whole + frac or "0")) * Fraction(10) ** (power - len(frac))
    if value >= _FLOAT_LIMIT:
        raise _error(f"number {quote(literal)} is too large", f"数字 {quote(literal)} 太大", column)
    return _Token("num", literal, column, value), match.end()


def _name(text: str, i: int) -> tuple[_Token, int]:
    """An ASCII identifier; a LaTeX subscript `d_{h}` is read as `d_h`."""
    match = _NAME.match(text, i)
    assert match is not None
    name, end = match.group(0), match.end()
    if name.endswith("_") and text.startswith("{", end):
        sub = _SUBSCRIPT.match(text, end)
        if sub is None:
            raise _error("a subscript in braces may hold only letters and digits, e.g. d_{h}", "花括号下标只能包含字母和数字，例如 d_{h}", end + 1)
        name, end = name + sub.group(1), sub.end()
    return _Token("name", text[i:end], i + 1, name), end


def _latex(text: str, i: int) -> tuple[_Token | None, int]:
    """A LaTeX command from the supported subset (None for spacing commands)."""
    column = i + 1
    nxt = text[i + 1 : i + 2]
    if nxt and nxt in _LATEX_SPACES:
        return None, i + 2
    match = _COMMAND.match(text, i + 1)
    if match is None:
        raise _error("a backslash must start a LaTeX command such as \\frac", "反斜杠后必须是 LaTeX 命令，例如 \\frac", column)
    command, end = match.group(0), match.end()
    if command not in _LATEX:
        supported = ", ".join("\\" + c for c in _LATEX)
        raise _error(
            f"LaTeX command {quote(chr(92) + command)} is not supported",
            f"不支持 LaTeX 命令 {quote(chr(92) + command)}",
            column,
            (f"supported: {supported}", f"支持：{supported}"),
        )
    kind, value = _LATEX[command]
    if kind in "()":  # \left( and \right): the delimiter must follow
        while end < len(text) and text[end] in _SPACE:
            end += 1
        if text[end : end + 1] != kind:
            raise _error(f"\\{command} must be followed by '{kind}'", f"\\{command} 后面必须是 '{kind}'", column)
        end += 1
    return _Token(kind, text[i:end], column, value), end


def _superscript(text: str, i: int) -> tuple[_Token, int]:
    """A run of Unicode superscript digits (optionally ⁻ first) as an integer exponent."""
    end = i + 1 if text[i] == "⁻" else i
    while end < len(text) and text[end] in _SUPERSCRIPTS:
        end += 1
    digits = text[i + 1 if text[i] == "⁻" else i : end]
    if not digits:
        raise _error("superscript minus '⁻' must be followed by superscript digits", "上标负号 '⁻' 后必须跟上标数字", i + 1)
    if len(digits) > 4:
        raise _error(f"exponent {text[i:end]} is too large (the limit is {MAX_EXPONENT})", f"指数 {text[i:end]} 太大（上限 {MAX_EXPONENT}）", i + 1)
    value = int("".join(str(_SUPERSCRIPTS[c]) for c in digits))
    return _Token("sup", text[i:end], i + 1, -value if text[i] == "⁻" else value), end


# --- the parser ----------------------------------------------------------------------------------

_STARTS_FACTOR = frozenset({"name", "(", "{", "frac"})
_CLOSERS = {"(": ")", "{": "}"}


def check_symbols(symbols: Mapping[str, str]) -> None:
    """Reject a badly declared symbol table (a mistake in the checks, not in the answer)."""
    for name, domain in symbols.items():
        if not _NAME.fullmatch(name) or name in FUNCTIONS or name in CONSTANTS:
            raise ValueError(f"symbol name {name!r} is not an identifier distinct from functions and constants")
        if domain not in DOMAINS:
            raise ValueError(f"symbol {name!r} has domain {domain!r}; expected one of {DOMAINS}")


class _Parser:
    """Recursive descent over tokens; every nested construct goes through `_descend`."""

    def __init__(self, tokens: list[_Token], symbols: Mapping[str, str]):
        self.tokens = tokens
        self.symbols = symbols
        self.pos = 0
        self.depth = 0

    def parse(self) -> Expr:
        if self._peek().kind == "end":
            raise ExpressionError("the answer is empty", "答案为空")
        expr = self._descend(self._sum, self._peek())
        tok = self._peek()
        if tok.kind != "end":
            raise self._unexpected(tok)
        return expr

    def _peek(self) -> _Token:
        return self.tokens[self.pos]

    def _next(self) -> _Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def _descend(self, parse: Callable[[], Expr], tok: _Token) -> Expr:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise _error(f"the answer is nested more than {MAX_DEPTH} levels deep", f"答案嵌套超过 {MAX_DEPTH} 层", tok.column)
        try:
            return parse()
        finally:
            self.depth -= 1

    def _unexpected(self, tok: _Token) -> ExpressionError:
        if tok.kind == "end":
            return _error("the answer ends where a number, symbol or '(' was expected", "答案在需要数字、符号或 '(' 的位置结束了", tok.column)
        if tok.kind in (")", "}"):
            return _error(f"'{tok.text}' has no matching opening bracket", f"'{tok.text}' 没有对应的左括号", tok.column)
        if tok.kind == "num":
            return _error(f"an operator is missing before the number {quote(tok.text)}", f"数字 {quote(tok.text)} 前缺少运算符", tok.column)
        return _error(f"unexpected {quote(tok.text)}", f"此处不应出现 {quote(tok.text)}", tok.column)

    def _sum(self) -> Expr:
        left = self._product()
        while (tok := self._peek()).kind == "op" and tok.value in ("+", "-"):
            self._next()
            left = BinOp(tok.value, left, self._product())
        return left

    def _product(self) -> Expr:
        """Factors joined by * and /, or by juxtaposition (implicit multiplication)."""
        left = self._unary()
        while True:
            tok = self._peek()
            if tok.kind == "op" and tok.value in ("*", "/"):
                self._next()
                left = BinOp(tok.value, left, self._unary())
            elif tok.kind in _STARTS_FACTOR:
                left = BinOp("*", left, self._power())
            elif tok.kind == "num":
                raise self._unexpected(tok)
            else:
                return left

    def _unary(self) -> Expr:
        tok = self._peek()
        if tok.kind == "op" and tok.value in ("+", "-"):
            self._next()
            arg = self._descend(self._unary, tok)
            return Neg(arg) if tok.value == "-" else arg
        return self._power()

    def _power(self) -> Expr:
        base = self._primary()
        tok = self._peek()
        if tok.kind == "sup" and isinstance(tok.value, int):
            self._next()
            return self._pow(base, Num(Fraction(tok.value)), tok)
        if tok.kind == "op" and tok.value == "^":
            self._next()
            return self._pow(base, self._descend(self._unary, tok), tok)
        return base

    def _pow(self, base: Expr, exponent: Expr, tok: _Token) -> Expr:
        """A power whose constant exponent is small, so no exact evaluation can explode."""
        node = BinOp("^", base, exponent)
        if not free_symbols(exponent):
            try:
                size = abs(evaluate(exponent, {}))
            except UndefinedError as e:  # an exponent floating point cannot compute is too large; 1/0 is just undefined
                size = 0.0 if e.certain else math.inf
            if size > MAX_EXPONENT:
                raise _error(f"the exponent is too large (the limit is {MAX_EXPONENT})", f"指数太大（上限 {MAX_EXPONENT}）", tok.column)
            if not free_symbols(base):
                try:
                    evaluate(node, {})
                except UndefinedError as e:
                    if not e.certain:
                        raise _error("the number is too large", "数值太大", tok.column) from None
        return node

    def _primary(self) -> Expr:
        tok = self._next()
        if tok.kind == "num" and isinstance(tok.value, Fraction):
            return Num(tok.value)
        if tok.kind in _CLOSERS:
            return self._group(tok)
        if tok.kind == "frac":
            numerator = self._group(self._expect("{", tok))
            return BinOp("/", numerator, self._group(self._expect("{", tok)))
        if tok.kind == "name":
            return self._name(tok)
        raise self._unexpected(tok)

    def _group(self, opener: _Token) -> Expr:
        """The inside of ( ) or { } after `opener`, through its closing bracket."""
        inner = self._descend(self._sum, opener)
        closer = _CLOSERS[opener.kind]
        tok = self._peek()
        if tok.kind != closer:
            if tok.kind == "end":
                raise _error(f"'{opener.text}' is never closed", f"'{opener.text}' 没有闭合", opener.column)
            raise _error(
                f"expected '{closer}' to close '{opener.text}' from column {opener.column}",
                f"需要 '{closer}' 来闭合第 {opener.column} 列的 '{opener.text}'",
                tok.column,
            )
        self._next()
        return inner

    def _expect(self, kind: str, after: _Token) -> _Token:
        tok = self._next()
        if tok.kind != kind:
            raise _error(f"{after.text} must be written {after.text}{{a}}{{b}}", f"{after.text} 必须写成 {after.text}{{a}}{{b}}", tok.column)
        return tok

    def _name(self, tok: _Token) -> Expr:
        name = str(tok.value)
        if name in self.symbols:
            return Sym(name)
        if name in _EPSILON_ALIASES and "epsilon" in self.symbols:
            return Sym("epsilon")
        if name in FUNCTIONS:
            func = FUNCTIONS[name]
            if func == "log10":
                return BinOp("/", Call("log", self._argument(tok)), _LOG10)
            return Call(func, self._argument(tok))
        if name in CONSTANTS:
            return Const(name)
        raise self._unknown(tok)

    def _argument(self, func: _Token) -> Expr:
        """A function's argument: a bracketed group, or (LaTeX style, `\\ln k`) the next power."""
        tok = self._peek()
        if tok.kind in _CLOSERS:
            return self._group(self._next())
        if tok.kind in ("name", "num", "frac"):
            return self._descend(self._power, tok)
        example = func.text.lstrip("\\") + "(x)"
        raise _error(
            f"function {quote(func.text)} needs an argument", f"函数 {quote(func.text)} 需要参数", func.column, (f"write e.g. {example}", f"例如写成 {example}")
        )

    def _unknown(self, tok: _Token) -> UnknownSymbolError:
        where_en, where_zh = _where(tok.column)
        if self.symbols:
            names = ", ".join(self.symbols)
            known_en, known_zh = f"this question's symbols are {names}", f"本题的符号为 {names}"
        else:
            known_en, known_zh = "this answer must not use symbols", "本题答案不能包含符号"
        if self._peek().kind == "(":
            functions = ", ".join(FUNCTIONS)
            return UnknownSymbolError(
                f"unknown function or symbol {quote(tok.text)}{where_en}; the functions are {functions}; {known_en}",
                f"未知的函数或符号 {quote(tok.text)}{where_zh}；可用函数为 {functions}；{known_zh}",
                column=tok.column,
                name=tok.text,
            )
        return UnknownSymbolError(
            f"unknown symbol {quote(tok.text)}{where_en}; {known_en}", f"未知的符号 {quote(tok.text)}{where_zh}；{known_zh}", column=tok.column, name=tok.text
        )


def parse(text: str, symbols: Mapping[str, Domain]) -> Expr:
    """Read `text` as a formula in the declared `symbols`; ExpressionError says what is wrong and where."""
    check_symbols(symbols)
    if len(text) > MAX_LENGTH:
        raise ExpressionError(
            f"the answer is {len(text):,} characters long; the limit is {MAX_LENGTH}", f"答案长度为 {len(text):,} 个字符，上限为 {MAX_LENGTH}"
        )
    return _Parser(_tokenize(text), symbols).parse()


# --- floating-point evaluation with a rounding-error bound ---------------------------------------

_U = 2.0**-53  # unit roundoff of IEEE double
SAFETY = 4.0  # margin on the first-order rounding-error bound


def evaluate(expr: Expr, values: Mapping[str, float]) -> float:
    """The value of `expr` with symbols set to `values`; UndefinedError where it has no finite value."""
    return evaluate_bounded(expr, values)[0]


def evaluate_bounded(expr: Expr, values: Mapping[str, float]) -> tuple[float, float]:
    """Value and a first-order bound on its accumulated rounding error (inf where it cannot be bounded)."""
    try:
        value, error = _eval(expr, values)
    except UndefinedError:
        raise
    except (ArithmeticError, ValueError) as e:  # overflow, or a case the domain checks below do not foresee
        raise UndefinedError(str(e), certain=False) from None
    if not math.isfinite(value):
        raise UndefinedError("the value is not finite", certain=False)
    return value, error if error == error else math.inf  # a NaN bound bounds nothing


def _eval(node: Expr, values: Mapping[str, float]) -> tuple[float, float]:
    match node:
        case Num():
            return node.approx, _U * abs(node.approx)
        case Sym(name):
            return float(values[name]), 0.0
        case Const(name):
            value = math.pi if name == "pi" else math.e
            return value, _U * value
        case Neg(arg):
            value, error = _eval(arg, values)
            return -value, error
        case BinOp(op, left, right):
            return _binop(op, *_eval(left, values), *_eval(right, values))
        case Call(func, arg):
            return _call(func, *_eval(arg, values))
    raise TypeError(f"not an expression: {node!r}")


def _surely_negative(value: float, error: float) -> bool:
    """Whether a value computed as `value` with this rounding error is negative in exact arithmetic too."""
    return value + SAFETY * error < 0


def _binop(op: str, a: float, ea: float, b: float, eb: float) -> tuple[float, float]:
    if op == "+":
        value, error = a + b, ea + eb
    elif op == "-":
        value, error = a - b, ea + eb
    elif op == "*":
        value, error = a * b, _times(abs(a), eb) + _times(abs(b), ea) + _times(ea, eb)
    elif op == "/":
        if b == 0:
            raise UndefinedError("division by zero", certain=eb == 0)
        value = a / b
        error = (ea + abs(value) * eb) / (abs(b) - eb) if eb < abs(b) else math.inf
    else:
        value, error = _power(a, ea, b, eb)
    if not math.isfinite(value):
        raise OverflowError("intermediate value is not finite")
    return value, error + _U * abs(value)


def _times(x: float, y: float) -> float:
    """x * y for error terms, where an exact zero times an unbounded error is still zero."""
    return 0.0 if x == 0 or y == 0 else x * y


def _power(a: float, ea: float, b: float, eb: float) -> tuple[float, float]:
    if a == 0 and b < 0:
        raise UndefinedError("zero to a negative power", certain=ea == 0)
    if a < 0 and not b.is_integer():  # certain unless the base or the exponent may differ by rounding
        near_integer = abs(b - round(b)) <= SAFETY * eb
        raise UndefinedError("a negative number to a fractional power", certain=_surely_negative(a, ea) and not near_integer)
    value = math.pow(a, b)
    error = 0.0
    if ea:
        error += abs(value * b / a) * ea if a else (math.pow(ea, b) if b >= 1 else math.inf)
    if eb:
        error += _times(abs(value * math.log(a)), eb) if a > 0 else (0.0 if a == 0 else math.inf)
    return value, error


def _call(func: str, a: float, ea: float) -> tuple[float, float]:
    if func == "exp":
        value = math.exp(a)
        error = value * math.expm1(min(ea, 700.0))
    elif func == "log":
        if a <= 0:
            raise UndefinedError("logarithm of a number that is not positive", certain=a + SAFETY * ea <= 0)
        value = math.log(a)
        error = ea / (a - ea) if ea < a else math.inf
    elif func == "sqrt":
        if a < 0:
            raise UndefinedError("square root of a negative number", certain=_surely_negative(a, ea))
        value = math.sqrt(a)
        error = min(ea / value if value else math.inf, math.sqrt(ea))
    elif func == "tanh":
        value, error = math.tanh(a), ea  # tanh is 1-Lipschitz
    elif func == "sigmoid":
        value = 1.0 / (1.0 + math.exp(-a)) if a >= 0 else math.exp(a) / (1.0 + math.exp(a))
        error = ea / 4  # the logistic function is 1/4-Lipschitz
    else:
        value, error = abs(a), ea
    return value, error + _U * abs(value)
