"""What a check raises when the submission is wrong: `Fail`, and `StudentError` for a failure inside the student process."""

from __future__ import annotations

from collections.abc import Mapping

from grader.results import Outcome
from grader.text import Text, TextError, one_line, quoted

# A named mistake as a check writes it: English, (English, Chinese), or a Text.
Named = str | tuple[str, str] | Text
Diagnoses = Named | list[Named] | tuple[Named, ...]  # one named mistake, or several


class Fail(TextError):
    """The submission is wrong: `en`/`zh` say how; `share` (0 to 1) of the check's points is still earned.

    Points are declared once, on the check (`@check(points=...)`); the engine multiplies. A share of 1 loses nothing:
    the check passes, with the message as a note (a mistake charged once, at another check). `diagnosis`
    names the mistakes the feedback names (one, or several); `outcome` is REFUSED for work that does
    what the exercise forbids.
    """

    def __init__(self, en: str | Text, zh: str | None = None, *, share: float = 0.0, diagnosis: Diagnoses = (), outcome: Outcome = Outcome.FAILED):
        super().__init__(en, zh)
        self.share = min(max(float(share), 0.0), 1.0) if share == share else 0.0  # NaN earns nothing
        self.diagnosis = named(diagnosis)
        self.outcome = outcome


def named(diagnosis: Diagnoses) -> tuple[Text, ...]:
    """Named mistakes as Texts: one (a string, an (en, zh) pair, a Text) or a list of them."""
    if isinstance(diagnosis, tuple) and len(diagnosis) == 2 and isinstance(diagnosis[0], str) and isinstance(diagnosis[1], str):
        return (Text(diagnosis[0], diagnosis[1]),)  # one mistake, in English and Chinese
    if isinstance(diagnosis, (str, Text)):
        diagnosis = [diagnosis]
    return tuple(d if isinstance(d, Text) else Text(d) if isinstance(d, str) else Text(*d) for d in diagnosis)


class StudentError(Fail):
    """A failure inside the student process: it raised (FAILED), hung (TIMED_OUT), died or sent back junk (CRASHED),
    or was not run (NOT_RUN); the grader sets `outcome` from what it observed."""

    def __init__(self, en: str | Text, zh: str | None = None, *, types: tuple[str, ...] = (), outcome: Outcome = Outcome.FAILED, diagnosis: Diagnoses = ()):
        super().__init__(en, zh, outcome=outcome, diagnosis=diagnosis)
        self.types = types

    def with_hint(self, hint: Text, *, diagnosis: Diagnoses = ()) -> StudentError:
        """The same failure with advice appended (a new error: this one is not changed)."""
        return StudentError(self.message + hint, types=self.types, outcome=self.outcome, diagnosis=self.diagnosis + named(diagnosis))

    @classmethod
    def from_report(cls, label: str, error: Mapping[str, object]) -> StudentError:
        """Feedback from the student process's own (untrusted) error report: every word of it quoted as the submission's."""
        kind = error.get("kind")
        message = quoted(error.get("message"))
        where = error.get("where")
        at = f" at {quoted(where, limit=120)}" if isinstance(where, str) and where else ""
        zh_at = f"（位置：{quoted(where, limit=120)}）" if at else ""
        if kind == "exception":
            name = quoted(error.get("type"), limit=60)
            bases = error.get("bases")
            bases = bases[:32] if isinstance(bases, list) else []
            types = tuple(one_line(b, limit=60) for b in bases if isinstance(b, str))
            return cls(
                f"{label} raised {name}{at}; the submission's message: {message}",
                f"{label} 抛出 {name}{zh_at}；提交代码给出的信息：{message}",
                types=types,
            )
        if kind == "import":
            return cls(
                f"{label}: the submission's file could not be imported{at}; its error: {message}",
                f"{label}：无法导入提交的文件{zh_at}；错误信息：{message}",
                outcome=Outcome.NOT_IMPORTED,
            )
        if kind == "exit":
            return cls(f"{label} tried to exit the process{at}: {message}", f"{label} 试图退出进程{zh_at}：{message}")
        if kind == "missing":
            return cls(f"{label}: {message}", f"{label}：{message}", outcome=Outcome.NOT_IMPORTED)
        if kind == "unsendable":
            return cls(f"{label} returned a value the grader cannot accept: {message}", f"{label} 的返回值无法被评分程序接收：{message}")
        return cls(f"{label} failed: {message}", f"{label} 失败：{message}")

    def raised(self, exception_name: str) -> bool:
        """Whether the submission raised `exception_name` (or a subclass of it)."""
        return exception_name in self.types
