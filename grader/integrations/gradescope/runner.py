"""Gradescope's runner: grades ROOT/submission against ROOT/source and always writes ROOT/results/results.json.

`python -m grader.integrations.gradescope.runner ROOT`, with ROOT=/autograder, grades a zip from
`grade pack`, a folder laid out like exercises/, or the files uploaded loose (see `upload`), a failed
run included ("the autograder failed: …", 0 points).

Students see the checks (hidden ones once grades are published) and the top-level `output`, which
never gives the score away. What only instructors should read – the sandbox's protections, the log,
a traceback – goes to stdout (Gradescope shows it to instructors only; `stdout_visibility` says so
again) and to a 0-point test of visibility `hidden`.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from datetime import datetime
from pathlib import Path
from typing import Any

from grader.course import Course
from grader.errors import SubmissionError
from grader.inside import layout
from grader.integrations.gradescope.upload import Refused, arranged
from grader.results import GradeResult
from grader.text import Text, one_line, printable

METADATA = "submission_metadata.json"  # Gradescope's, in ROOT: the submitter, the time, and earlier submissions' results
# What results.json says while the run is under way, and after, if Gradescope stopped it.
DID_NOT_FINISH = "it did not finish (Gradescope stops a run at the assignment's time limit); your instructor can see how far it got"


def run(root: Path) -> dict[str, Any]:
    """Grade root/submission with the course in root/source; write root/results/results.json and return it."""
    from grader.export.gradescope import to_dict
    from grader.results import GradeResult

    started = time.monotonic()
    results = root / "results" / "results.json"
    course = None
    try:
        # Replaced when the run ends: one that Gradescope stops at its time limit still leaves a results.json.
        _write(results, _finished(to_dict(GradeResult.of_failure("submission", [], DID_NOT_FINISH)), started))
        from grader.course import load_course

        course = load_course(root / "source")
        _lock(course, root)
        doc = _graded(course, root, root / "submission")
    except BaseException as error:  # whatever went wrong, Gradescope gets a results.json
        doc = _failed(course, error)
    _write(results, _finished(doc, started))
    return doc


def _finished(doc: dict[str, Any], started: float) -> dict[str, Any]:
    doc["execution_time"] = round(time.monotonic() - started, 3)
    doc["stdout_visibility"] = "hidden"  # Gradescope's default, said again: what the runner prints is for instructors
    return doc


def _say(text: str) -> None:
    """A line for instructors; a closed or broken stdout never costs the student a grade."""
    try:
        print(printable(text), flush=True)  # an uploaded file's name may hold bytes stdout cannot encode
    except OSError:
        pass


def _lock(course: Course, root: Path) -> None:
    """Make solutions/, the course tree and submission_metadata.json the owner's alone (root's, on Gradescope).

    Where Gradescope forbids namespaces, a student process has no private file-system view; under an unprivileged uid
    it then still cannot read what grades it, nor the metadata's previous_submissions (earlier results: the hidden
    checks' feedback and the scores, before grades are published).
    """
    for path in [*course.secrets, root / METADATA]:
        if path.exists():
            os.chmod(path, 0o700 if path.is_dir() else 0o600)


def _graded(course: Course, root: Path, upload: Path) -> dict[str, Any]:
    from grader.export.gradescope import to_dict
    from grader.grading.pipeline import Grader, resolve_device
    from grader.submissions import opened

    with arranged(course, upload) as (submission, notes):
        label = str(submission.relative_to(root)) if submission.is_relative_to(root) else upload.name
        _say(f"grading {label} with the course in {course.root}")
        about = metadata(root)
        members = metadata_students(about, course)
        student = members[0] if members else None
        if course.variants.enabled and len(members) > 1:
            raise Refused(_group_refusal(members))
        if course.variants.enabled and student is None:
            _say(f"no student id in submission_metadata.json (users[*].{course.variants.gradescope_id}): graded on the statement's numbers")
        with Grader(course, list(course.exercises), resolve_device(course.device)) as grader, opened(submission) as folder:
            result = grader.grade(folder, label=label, student=student)
    if course.policy is not None:
        result = _late(course, about, label, result, members)
    doc = to_dict(result)
    sandbox = _sandbox_report(result.protections, course.root)
    doc["tests"].append({"name": "autograder: sandbox", "score": 0.0, "max_score": 0.0, "status": "passed", "output": sandbox, "visibility": "hidden"})
    absent = [e for e in result.exercises if e.max_score and not e.checks]  # points at stake, no check run: not submitted
    if absent:
        names = ", ".join(f"{e.id} ({course.exercise(e.id).folder}/)" for e in absent)
        notes.append(Text(f"Not in your hand-in, 0 points: {names}.", f"你的提交中没有以下练习（0 分）：{names}。"))
    for e, rubric in ((e, e.rubric) for e in course.exercises if e.rubric is not None):
        written = next((r.written for r in result.exercises if r.id == e.id and r.written is not None), None)
        state = Text("handed in", "已提交") if written is not None and written.answered else Text("not found", "未找到")
        notes.append(
            Text(f"{e.id}'s written answer ({rubric.file}, {rubric.points:g} points): ", f"{e.id} 的书面回答（{rubric.file}，{rubric.points:g} 分）：")
            + state
            + Text("; the course staff mark it by hand in Gradescope, not this autograder.", "；由课程教师在 Gradescope 中人工评分，不由自动评分器评分。")
        )
    if result.internal_errors:
        notes.append(
            Text(
                "Some checks could not run because of a problem in the autograder, not in your work; tell your instructor.",
                "部分检查因自动评分器本身的问题未能运行（不是你的代码的问题）；请告知老师。",
            )
        )
    summary = Text(
        f"Graded {len(result.exercises)} exercises. The public checks are shown now; the graded checks and your score once grades are published.",
        f"已评定 {len(result.exercises)} 个练习。公开检查现在可见；计分检查和你的分数在成绩发布后可见。",
    )
    doc["output"] = Text.join("\n", [summary, *notes]).render(course.language)
    _say(f"score {doc['score']:g}/{doc['max_score']:g} in {result.seconds:.1f} s\n{sandbox}")
    for error in result.internal_errors:
        _say(f"grader error: {error}")
    return doc


def _group_refusal(members: list[str]) -> Text:
    """Why a group upload is not graded while each student has numbers of their own: Gradescope gives the one
    results.json to every member, so one member's numbers would grade them all (a member could copy another's answers)."""
    names = ", ".join(members)
    return Text(
        f"this upload is a group's ({names}), but every student has numbers of their own in this course, and a group's "
        "upload gets one score for all its members; each of you uploads your own work alone (remove the group in Gradescope), 0 points until then",
        f"这是小组提交（{names}），但本课程每位学生的题目数值各不相同，而小组提交只能为所有成员给出同一个分数；"
        "请每人单独上传自己的作业（在 Gradescope 中取消小组），在此之前为 0 分",
    )


def _late(course: Course, about: dict[str, Any], label: str, result: GradeResult, members: list[str]) -> GradeResult:
    """course.toml's late policy at the time Gradescope received the upload (submission_metadata.json's `created_at`),
    the members' extensions (`grade gradescope export --extensions`) applied; without a time, no penalty, and the
    instructors' log says so."""
    from grader.term.finals import Term
    from grader.term.times import HandIn, gradescope_created_at

    when = gradescope_created_at(about)
    if when is None:
        _say("no submission time: submission_metadata.json has no created_at with a time zone; graded without late penalty")
        return Term(policy=course.policy).final_result(label, result)
    hand_in = HandIn(when, "submission_metadata.json")
    return Term(policy=course.policy, hand_ins={label: {e.id: hand_in for e in result.exercises}}, extensions=_extensions(course, label, members)).final_result(
        label, result
    )


def _extensions(course: Course, label: str, members: list[str]) -> dict[tuple[str, str], datetime]:
    """The upload's extensions from the exported file, keyed as the Term wants them ((label, exercise) -> due); ids
    compared as the variants compare them (`Alice` is alice). A group's upload has an extension only as far as it holds
    for every member: each exercise's earliest due date among them wins (a member without one has the course's).
    An unreadable file: none, and the log says why."""
    from grader.integrations.gradescope.bundle import EXTENSIONS
    from grader.term.csvin import TermFileError
    from grader.term.times import extension_of, extensions
    from grader.variants import canonical

    path = course.root / EXTENSIONS
    if not path.is_file():
        return {}
    try:
        found = extensions(path, [e.id for e in course.exercises])
    except TermFileError as e:
        _say(f"extensions not applied: {e}")
        return {}
    if not members:
        if found:
            _say(f"no student id in submission_metadata.json (users[*].{course.variants.gradescope_id}): no extension applied")
        return {}
    keyed = {(canonical(who), exercise): due for (who, exercise), due in found.items()}
    granted = {}
    for exercise in course.exercises:
        default = course.policy.due_for(exercise.id) if course.policy else None
        dues = [d for m in members if (d := extension_of(keyed, canonical(m), exercise.id) or default) is not None]
        if dues and min(dues) != default:
            granted[(label, exercise.id)] = min(dues)
    return granted


def metadata(root: Path) -> dict[str, Any]:
    """Gradescope's submission_metadata.json, read once for all that grading takes from it (the submitter, the time);
    {} when absent, over 1 MiB or not a JSON object."""
    import json

    path = root / METADATA
    try:
        if path.stat().st_size > 1 << 20:
            return {}
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def metadata_students(about: dict[str, Any], course: Course) -> list[str]:
    """The upload's students in Gradescope's metadata (`metadata`): each of `users`' field that course.toml's [variants]
    gradescope_id names ("email" or "sid"), the submitter first, one per student as the variants compare ids; [] when
    none says."""
    from grader.variants import canonical

    users = about.get("users")
    found: dict[str, str] = {}
    for user in users if isinstance(users, list) else []:
        value = user.get(course.variants.gradescope_id) if isinstance(user, dict) else None
        if isinstance(value, str) and value.strip():
            found.setdefault(canonical(value), value.strip())
    return list(found.values())


def _sandbox_report(found: list[dict[str, Any]] | None, course_root: Path) -> str:
    """For instructors: the summary line, then each protection on or off and why."""
    from grader.sandbox.doctor import summary

    lines = [summary(found)]
    lines += [f"{'on ' if p['active'] else 'off'} {p['name']}: {p['note']}" for p in found or []]
    lines.append(f"{' and '.join(f'{p.name}/' for p in layout.secrets(course_root))} of {course_root} are readable by their owner alone (mode 700)")
    return "\n".join(lines)


def _failed(course: Course | None, error: BaseException) -> dict[str, Any]:
    from grader.export.gradescope import to_dict
    from grader.results import GradeResult

    if isinstance(error, Refused) and course:  # the upload's layout: the student can fix it
        message = error.text.render(course.language)
    elif isinstance(error, SubmissionError):  # a zip or folder that cannot be read: 0 points, saying why
        message = f"could not be read: {error}"
    else:
        _say("".join(traceback.format_exception(error)).rstrip())
        message = f"internal error ({type(error).__name__}: {one_line(str(error), limit=300)}); your instructor can see the details"
    _say(f"the autograder failed: {message}")
    failed = GradeResult.of_failure("submission", course.exercises if course else [], message, language=course.language if course else "en")
    return to_dict(failed)


def _write(path: Path, doc: dict[str, Any]) -> None:
    from grader.export.files import write_atomic
    from grader.export.gradescope import dumps

    write_atomic(path, dumps(doc) + "\n")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m grader.integrations.gradescope.runner ROOT   (ROOT=/autograder on Gradescope)", file=sys.stderr)
        return 2
    run(Path(argv[0]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
