"""What a student uploaded to Gradescope, arranged as the grader reads it, or refused saying what to upload."""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from grader.course import Course, Exercise
from grader.errors import SubmissionError
from grader.text import Text


class Refused(SubmissionError):
    """The upload cannot be graded as it is; `text` tells the student what to upload instead."""

    def __init__(self, text: Text):
        super().__init__(text.en)
        self.text = text


@contextlib.contextmanager
def arranged(course: Course, upload: Path) -> Iterator[tuple[Path, list[Text]]]:
    """(what to grade, what to tell the student about it) for Gradescope's `upload` folder.

    One .zip (from `grade pack`) is graded as it is, alone or alone in a single folder, and so is a folder laid out
    like exercises/ or one holding a single such folder. A file uploaded loose goes into the one exercise folder
    whose files bear its name (gated.py into ex05_gated_steps/). Refused, saying what to upload:
    nothing uploaded, a zip beside other files, a loose file that several exercises have
    (answers.toml), a file uploaded both loose and in its folder, nothing any exercise asks for, and a
    symbolic link where a file or folder belongs (a repository submission keeps links: one could point
    at the course's own solutions/). A notebook `<id>.ipynb` is that exercise's work, loose or in its folder.
    """
    from grader.submissions.workspace import looks_like_submission

    entries = _uploaded(upload)
    if len(entries) == 1 and entries[0].is_dir() and not looks_like_submission(upload, course):
        upload = entries[0]  # the exercises/ folder itself, or a zip's single top folder
        entries = _uploaded(upload, allow_empty=True)
    if zipped := _the_zip(entries):  # alone, or alone in the one folder uploaded
        yield zipped, []
        return
    mapped, ignored = _placed(course, upload, entries)
    if not mapped and not looks_like_submission(upload, course):
        names = ", ".join(p.name for p in entries)
        raise Refused(
            Text(
                f"none of the uploaded files ({names}) is one an exercise asks for; upload the zip that "
                "`grade pack` writes, or your files such as gated.py in their exercise folders",
                f"上传的文件（{names}）都不是练习要求的文件；请上传 `grade pack` 生成的 zip，或把 gated.py 等文件放在所属练习的文件夹中上传",
            )
        )
    notes = [Text(f"Ignored (no exercise asks for it): {', '.join(ignored)}.", f"已忽略（没有练习要求这些文件）：{', '.join(ignored)}。")] if ignored else []
    if not mapped:
        yield upload, notes
        return
    with _assembled(course, entries, mapped) as (folder, moved):
        yield folder, notes + moved


def _uploaded(folder: Path, allow_empty: bool = False) -> list[Path]:
    """The entries of `folder` a student meant to upload (no dot files, no macOS zip debris); links and nothing refused."""
    entries = sorted(p for p in folder.iterdir() if not p.name.startswith(".") and p.name != "__MACOSX") if folder.is_dir() else []
    links = [p.name for p in entries if p.is_symlink()]
    if links:
        raise Refused(
            Text(
                f"{', '.join(links)}: a symbolic link, not a file or folder; upload the files themselves (the zip that `grade pack` writes)",
                f"{', '.join(links)}：是符号链接，不是文件或文件夹；请上传文件本身（`grade pack` 生成的 zip）",
            )
        )
    if not entries and not allow_empty:
        raise Refused(Text("nothing was uploaded; upload the zip that `grade pack` writes", "没有上传任何文件；请上传 `grade pack` 生成的 zip"))
    return entries


def _the_zip(entries: list[Path]) -> Path | None:
    """The zip uploaded alone, if one was; a zip beside other files is refused."""
    zips = [p for p in entries if p.is_file() and p.suffix.lower() == ".zip"]
    if zips and len(entries) > 1:
        others = ", ".join(p.name for p in entries if p != zips[0])
        raise Refused(
            Text(
                f"{zips[0].name} was uploaded with other files ({others}); upload either the zip from `grade pack` alone or your files, not both",
                f"{zips[0].name} 与其他文件（{others}）一起上传；请只上传 `grade pack` 生成的 zip，或只上传你的文件",
            )
        )
    return zips[0] if zips else None


def _placed(course: Course, upload: Path, entries: list[Path]) -> tuple[list[tuple[Path, Exercise]], list[str]]:
    """(loose files with the one exercise each belongs to, names no exercise asks for); ambiguity refused."""
    owners: dict[str, list[Exercise]] = {}  # file name -> the exercises whose students edit a file of that name
    for exercise in course.exercises:
        for name in exercise.student_files:
            owners.setdefault(name, []).append(exercise)
    notebooks = {f"{e.id}.ipynb" for e in course.exercises}  # graded where they are: never moved
    mapped, ignored, problems = [], [], []
    for path in (p for p in entries if not p.is_dir() and p.name not in notebooks):
        found = owners.get(path.name, [])
        if not found:
            ignored.append(path.name)
        elif len(found) > 1:
            places = ", ".join(f"{e.folder}/{path.name}" for e in found)
            problems.append(
                Text(
                    f"{path.name} belongs to {len(found)} exercises; upload it inside its exercise folder ({places}), or upload the zip from `grade pack`",
                    f"{path.name} 属于 {len(found)} 个练习；请把它放在所属练习的文件夹中上传（{places}），或上传 `grade pack` 生成的 zip",
                )
            )
        elif (upload / found[0].folder / path.name).exists():
            problems.append(
                Text(
                    f"{path.name} was uploaded twice, loose and in {found[0].folder}/; upload it once",
                    f"{path.name} 上传了两次（单独一份，{found[0].folder}/ 中一份）；请只上传一次",
                )
            )
        else:
            mapped.append((path, found[0]))
    if problems:
        raise Refused(Text.join("\n", problems))
    return mapped, ignored


@contextlib.contextmanager
def _assembled(course: Course, entries: list[Path], mapped: list[tuple[Path, Exercise]]) -> Iterator[tuple[Path, list[Text]]]:
    """(a scratch folder laid out like exercises/, a note per loose file moved into its exercise's folder)."""
    notebooks = {f"{e.id}.ipynb" for e in course.exercises}
    scratch = Path(tempfile.mkdtemp(prefix="gradescope-upload-"))
    try:
        for entry in entries:  # the exercise folders and notebooks, as uploaded (no link among them: refused before)
            if entry.is_dir():
                shutil.copytree(entry, scratch / entry.name, symlinks=True)
            elif entry.name in notebooks:
                shutil.copy(entry, scratch / entry.name, follow_symlinks=False)
        moved = []
        for path, exercise in mapped:
            (scratch / exercise.folder).mkdir(exist_ok=True)
            shutil.copy(path, scratch / exercise.folder / path.name, follow_symlinks=False)
            moved.append(Text(f"Read {path.name} as {exercise.folder}/{path.name}.", f"已将 {path.name} 作为 {exercise.folder}/{path.name} 读取。"))
        yield scratch, moved
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
