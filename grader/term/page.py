"""`grade mark OUT --serve`: a local page to mark written answers – each answer beside its rubric, items and comments
as check boxes – that records each mark as `grade mark` does (journal, audit row), on 127.0.0.1 only.

The page has no script and loads nothing (a Content Security Policy says so); every student's text is escaped. 127.0.0.1
is open to every user of the machine, so every request needs the key this server made when it started, which only the
TA who started it is shown (in the address it prints; the page then keeps it in a strict, HTTP-only cookie): another
user can neither read an answer nor set a mark. Only a request to this address, with the form token of the page (a
page of another site cannot read it), may change a mark, so that no other site a TA visits can post one. Marks reach
OUT's files at the next `grade batch`, as every mark does.
"""

from __future__ import annotations

import html
import http.cookies
import secrets
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from grader.course import Course
from grader.errors import GraderError
from grader.rubric import Rubric
from grader.term import marks
from grader.term.marks import STATES
from grader.text import format_points, printable, signed

HOST = "127.0.0.1"
MAX_FORM = 64 << 10  # bytes of a posted form
COOKIE = "grade_mark_key"
_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:70em;padding:0 1em;color:#222}
table{border-collapse:collapse}th,td{border:1px solid #ccc;padding:.2em .6em;text-align:left}th{background:#f2f2f2}
pre{white-space:pre-wrap;background:#f7f7f7;border:1px solid #ddd;padding:.8em;max-height:50vh;overflow:auto}
.to-mark{color:#b35c00;font-weight:bold}.note{background:#e8f4e8;padding:.5em}.error{background:#fbe3e3;padding:.5em}
label{display:block;margin:.25em 0}textarea{width:100%;height:4em}.points{display:inline-block;width:3em;text-align:right}
"""


@dataclass
class Page:
    """The marking page's routes, over one batch output and the course's rubrics."""

    course: Course
    out: Path
    by: str | None = None
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    key: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    port: int = 0  # where its server listens (known once bound)

    def get(self, path: str, query: dict[str, list[str]]) -> tuple[int, str]:
        parts = _parts(path)
        if not parts:
            return 200, self._index()
        rubric, standings = marks.standings(self.course, self.out, parts[0])
        if len(parts) == 1:
            return 200, self._students(rubric, standings)
        found = [s for s in standings if s.student == parts[1]]
        if len(parts) > 2 or not found:
            return 404, _page("not found", f"<p>No student {_e(parts[1])} graded on {_e(rubric.exercise)} in this batch.</p>")
        said = query.get("saved", [""])[0]
        return 200, self._answer(rubric, found[0], saved=said, error=query.get("error", [""])[0])

    def post(self, path: str, form: dict[str, list[str]]) -> str:
        """Record the posted mark; the address to show next (the next answer to mark, or the same with what went wrong)."""
        parts = _parts(path)
        if len(parts) != 2 or not secrets.compare_digest(form.get("token", [""])[0], self.token):
            raise PermissionError("a form of this page, with its token, is needed to mark")
        exercise, student = parts
        here = f"/{_q(exercise)}/{_q(student)}"
        items = form.get("item", [])
        comments = form.get("comment", []) + [own for own in (t.strip() for t in form.get("own", [])) if own]
        clear = form.get("action", [""])[0] == "clear"
        try:
            marks.set_mark(
                course=self.course,
                out=self.out,
                student=student,
                exercise=exercise,
                items=[] if clear else items,
                comments=[] if clear else comments,
                by=self.by,
                clear=clear,
            )
        except GraderError as e:
            return f"{here}?error={_q(str(e))}"
        if form.get("action", [""])[0] == "next":
            _, standings = marks.standings(self.course, self.out, exercise)
            waiting = [s.student for s in standings if s.state == "to mark"]
            if waiting:
                return f"/{_q(exercise)}/{_q(waiting[0])}?saved={_q(student)}"
            return f"/{_q(exercise)}?saved={_q(student)}"
        return f"{here}?saved={_q(student)}"

    def _index(self) -> str:
        rows = []
        for e in (e for e in self.course.exercises if e.rubric is not None):
            try:
                _, standings = marks.standings(self.course, self.out, e.id)
            except GraderError as error:
                rows.append(f"<tr><td>{_e(e.id)}</td><td colspan=3>{_e(str(error))}</td></tr>")
                continue
            counts = [sum(s.state == k for s in standings) for k in ("to mark", "marked", "no answer")]
            rows.append(f'<tr><td><a href="/{_q(e.id)}">{_e(e.id)} {_e(e.heading.en)}</a></td>' + "".join(f'<td class="n">{n}</td>' for n in counts) + "</tr>")
        head = "<tr><th>exercise</th><th>to mark</th><th>marked</th><th>no answer</th></tr>"
        intro = (
            f"<p>Batch {_e(str(self.out))}. Marks land in its journal, each with an audit row; the next <code>grade batch</code> into it publishes them.</p>"
        )
        return _page("Written answers to mark", intro + f"<table>{head}{''.join(rows)}</table>")

    def _students(self, rubric: Rubric, standings: list[marks.Standing]) -> str:
        words = STATES["en"]
        rows = "".join(
            f'<tr><td><a href="/{_q(rubric.exercise)}/{_q(s.student)}">{_e(s.student)}</a></td>'
            f'<td class="{"to-mark" if s.state == "to mark" else ""}">{words[s.state]}</td>'
            f"<td>{'' if s.state == 'to mark' else format_points(s.points) + '/' + format_points(rubric.points)}</td><td>{_e(', '.join(s.items))}</td></tr>"
            for s in standings
        )
        head = "<tr><th>student</th><th>state</th><th>points</th><th>items</th></tr>"
        back = '<p><a href="/">all exercises</a></p>'
        return _page(f"{rubric.exercise}: {rubric.title.en}", back + f"<table>{head}{rows}</table>")

    def _answer(self, rubric: Rubric, s: marks.Standing, *, saved: str, error: str) -> str:
        items = "".join(
            f'<label><input type="checkbox" name="item" value="{_e(i.id)}"{" checked" if i.id in s.items else ""}> '
            f'<span class="points">{signed(i.points)}</span> <b>{_e(i.id)}</b>: {_e(i.description.en)}</label>'
            for i in rubric.items
        )
        chosen = {c.en for c in s.comments}
        comments = "".join(
            f'<label><input type="checkbox" name="comment" value="{_e(c.id)}"{" checked" if c.text.en in chosen else ""}> '
            f"<b>{_e(c.id)}</b>: {_e(c.text.en)}</label>"
            for c in rubric.comments
        )
        own = "\n".join(c.en for c in s.comments if c.en not in {x.text.en for x in rubric.comments})
        status = f'<p class="note">Saved the mark of {_e(saved)}.</p>' if saved else ""
        status += f'<p class="error">Not saved: {_e(error)}</p>' if error else ""
        now = f"{STATES['en'][s.state]}" + (f": {format_points(s.points)}/{format_points(rubric.points)}" if s.state == "marked" else "")
        body = (
            f'<p><a href="/{_q(rubric.exercise)}">{_e(rubric.exercise)}: all students</a></p>{status}'
            f"<h2>{_e(s.student)}: {_e(rubric.file)} ({_e(now)})</h2>"
            f"<pre>{_e(s.text) or _e(_absent(s))}</pre>"
            f'<form method="post" action="/{_q(rubric.exercise)}/{_q(s.student)}">'
            f'<input type="hidden" name="token" value="{self.token}">'
            f"<h3>Rubric ({format_points(rubric.points)} points; items add up, kept within 0 and {format_points(rubric.points)})</h3>{items}"
            f'<h3>Comments</h3>{comments}<label>Words of your own (the student reads them):<textarea name="own">{_e(own)}</textarea></label>'
            '<p><button type="submit" name="action" value="next">Save and go to the next to mark</button> '
            '<button type="submit" name="action" value="save">Save</button> '
            '<button type="submit" name="action" value="clear">Clear the mark</button></p></form>'
        )
        return _page(f"{rubric.exercise}: {rubric.title.en}", body)


def serve(*, course: Course, out: Path, port: int = 0, by: str | None = None, ready: Callable[[str], None] | None = None) -> ThreadingHTTPServer:
    """The page's server on 127.0.0.1 (`port` 0: any free one); `ready` gets its address. The caller runs
    `serve_forever()` and, to stop, `shutdown()`."""
    page = Page(course, out, by)
    server = ThreadingHTTPServer((HOST, port), _handler(page))
    page.port = server.server_port
    address = f"http://{HOST}:{page.port}/?key={page.key}"
    if ready is not None:
        ready(address)
    return server


def _handler(page: Page) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "grade-mark"
        timeout = 30  # seconds a request may take to arrive: a client that stops sending holds no thread for ever

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if not self._ours() or not self._keyed():
                return
            url = urllib.parse.urlsplit(self.path)
            try:
                status, body = page.get(url.path, urllib.parse.parse_qs(url.query))
            except GraderError as e:
                status, body = 404, _page("not found", f"<p>{_e(str(e))}</p>")
            self._send(status, body)

        def do_POST(self) -> None:  # noqa: N802
            if not self._ours() or not self._keyed():
                return
            origin = self.headers.get("Origin")
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                length = -1
            if origin not in (None, "null", *(f"http://{h}" for h in self._hosts())) or not 0 <= length <= MAX_FORM:
                self._send(403, _page("refused", "<p>Marks come from this page's own forms.</p>"))
                return
            try:
                body = self.rfile.read(length)
            except OSError:  # the client stopped sending: nothing to record
                return
            form = urllib.parse.parse_qs(body.decode("utf-8", errors="replace"), keep_blank_values=True)
            try:
                target = page.post(urllib.parse.urlsplit(self.path).path, form)
            except PermissionError as e:
                self._send(403, _page("refused", f"<p>{_e(str(e))}</p>"))
                return
            self.send_response(303)
            self.send_header("Location", target)
            self._headers()
            self.end_headers()

        def _keyed(self) -> bool:
            """Only requests with this server's key – in the address it printed, or in the cookie the page sets from it:
            127.0.0.1 is every local user's, and the key only the TA's who started the server."""
            query = urllib.parse.parse_qs(urllib.parse.urlsplit(self.path).query)
            cookies = http.cookies.SimpleCookie()
            try:
                cookies.load(self.headers.get("Cookie") or "")
            except http.cookies.CookieError:
                pass
            given = [*query.get("key", []), *(m.value for name, m in cookies.items() if name == COOKIE)]
            if any(secrets.compare_digest(k, page.key) for k in given):
                return True
            self._send(403, _page("refused", "<p>Open the address <code>grade mark --serve</code> printed, with its key.</p>"))
            return False

        def _hosts(self) -> tuple[str, str]:
            return f"{HOST}:{page.port}", f"localhost:{page.port}"

        def _ours(self) -> bool:
            """Only requests addressed to this server by its own name: a page of another site that resolves its name to
            127.0.0.1 (DNS rebinding) sends its own Host, and is refused."""
            if self.headers.get("Host") in self._hosts():
                return True
            self._send(421, _page("refused", "<p>Open this page at its own address.</p>"))
            return False

        def _send(self, status: int, body: str) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self._headers()
            self.end_headers()
            self.wfile.write(data)

        def _headers(self) -> None:
            self.send_header("Set-Cookie", f"{COOKIE}={page.key}; HttpOnly; SameSite=Strict; Path=/")
            for name, value in (
                ("Content-Security-Policy", _CSP),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                ("Cache-Control", "no-store"),
            ):
                self.send_header(name, value)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            """Quiet: the command prints its address, and each mark is on record in the journal."""

    return Handler


def _absent(s: marks.Standing) -> str:
    """What stands in the page for an answer with no text."""
    if s.refused:
        return f"(not taken: {s.refused}; read it in the hand-in itself)"
    return "(no answer: the file is absent, empty or the stub’s own)"


def _parts(path: str) -> list[str]:
    return [urllib.parse.unquote(p) for p in path.split("/") if p]


def _q(text: str) -> str:
    return urllib.parse.quote(text, safe="")


def _e(text: str) -> str:
    return html.escape(printable(text))


def _page(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title><style>{_STYLE}</style></head>'
        f"<body><h1>{_e(title)}</h1>{body}</body></html>\n"
    )
