"""grader/term/page.py: `grade mark OUT --serve`, the local page to mark written answers, opened in headless Chromium
(the class of test_marks.py: ex01 with ex08's rubric; ada and bob answered, cyd and dan did not)."""

import contextlib
import re
import threading
import urllib.error
import urllib.parse
import urllib.request

import pytest
from test_marks import ANSWER, audit_rows

import browser
from grader import api
from grader.course import load_course
from grader.term import page

pytestmark = pytest.mark.slow  # a graded class, a server, chromium


@contextlib.contextmanager
def served(graded):
    """The marking page of a graded batch on 127.0.0.1 (a free port), in a thread; its address."""
    found = []
    server = api.serve_marking(course=load_course(graded["course"]), out=graded["out"], port=0, by="tim", ready=found.append)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield found[0]
    finally:
        server.shutdown()
        server.server_close()


def at(address: str, path: str) -> str:
    """`path` on the page, with the key of its address."""
    base, key = address.split("?", 1)
    return f"{base}{path}{'&' if '?' in path else '?'}{key}"


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def post(address: str, path: str, fields: list[tuple[str, str]], *, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """A form posted as a browser posts it; (status, the Location it sends the browser to)."""
    data = urllib.parse.urlencode(fields).encode()
    url = urllib.parse.urlsplit(address)
    cookie = f"{page.COOKIE}={urllib.parse.parse_qs(url.query)['key'][0]}"
    own = {"Origin": f"http://{url.netloc}", "Cookie": cookie}
    request = urllib.request.Request(f"http://{url.netloc}{path}", data=data, headers=own | (headers or {}))
    try:
        with urllib.request.build_opener(NoRedirect).open(request, timeout=30) as response:
            return response.status, response.headers.get("Location", "")
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Location", "")


@browser.needed
def test_a_ta_marks_an_answer_on_the_page_and_it_lands_in_the_journal(written_copy):
    """In Chromium, does the page list who is to mark, show bob's answer beside the rubric's items and comments as check
    boxes – no script, nothing loaded from anywhere else, no policy violation logged – and does posting its form
    record the mark with an audit row (by the page's --by), then go on to the next answer to mark?"""
    with served(written_copy) as address:
        listing = browser.visit(at(address, "ex01"), height=900)
        assert re.search(r">bob</a></td><td class=\"to-mark\">to mark<", listing.dom) and '>cyd</a></td><td class="">no answer<' in listing.dom
        seen = browser.visit(at(address, "ex01/bob"), height=1400)
        assert "Bob: " + ANSWER.strip() in seen.dom
        assert seen.dom.count('name="item"') == 6 and seen.dom.count('name="comment"') == 3 and "<script" not in seen.dom
        assert not [line for line in seen.console if "Content Security Policy" in line or "Refused" in line], seen.console
        assert {urllib.parse.urlsplit(u).netloc for u in seen.requests} <= {urllib.parse.urlsplit(address).netloc}, seen.requests
        assert browser.pixels_of(seen.screenshot, (0xF7, 0xF7, 0xF7)) > 5000  # the answer's box is drawn
        token = re.search(r'name="token" value="([^"]+)"', seen.dom).group(1)
        fields = [("token", token), ("item", "equal-width"), ("item", "scope"), ("comment", "spread"), ("own", "Say which seeds."), ("action", "next")]
        status, location = post(address, "/ex01/bob", fields)
        assert (status, location) == (303, "/ex01/ada?saved=bob")  # ada is the next answer to mark
        [row] = audit_rows(written_copy["course"], written_copy["out"], "bob")
        assert (row["cause"], row["actor"], row["new"]) == ("mark", "tim", 1.0) and "Say which seeds." in row["reason"]
        after = browser.visit(at(address, "ex01/bob?saved=bob"), height=1400)
        assert "Saved the mark of bob." in after.dom and after.dom.count("checked") == 3  # two items, one comment
        assert "Say which seeds.</textarea>" in after.dom


def test_without_its_key_the_page_shows_nothing_and_takes_no_mark(written_copy):
    """127.0.0.1 is every local user's: is a request without the key the server printed – or with another key –
    refused, and a bad Content-Length refused without a traceback, nothing recorded?"""
    with served(written_copy) as address:
        base = address.split("?", 1)[0]
        for url in (base, base + "ex01/bob", base + "ex01/bob?key=guess"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(url, timeout=30)
            assert refused.value.code == 403 and "key" in refused.value.read().decode()
        assert post(address, "/ex01/bob", [("item", "scope")], headers={"Content-Length": "abc"})[0] == 403
    assert audit_rows(written_copy["course"], written_copy["out"]) == []


def test_only_this_pages_own_forms_may_mark(written_copy):
    """Is a post without the page's token, from another site's page (its Origin), or to another host name (DNS
    rebinding) refused, and a mistyped own comment sent back to the page as an error – with nothing recorded?"""
    with served(written_copy) as address:
        with urllib.request.urlopen(at(address, "ex01/bob"), timeout=30) as response:
            page = response.read().decode()
            assert response.headers["Content-Security-Policy"].startswith("default-src 'none'")
        token = re.search(r'name="token" value="([^"]+)"', page).group(1)
        mark = [("item", "scope"), ("action", "save")]
        assert post(address, "/ex01/bob", mark)[0] == 403
        assert post(address, "/ex01/bob", [("token", "guess"), *mark])[0] == 403
        assert post(address, "/ex01/bob", [("token", token), *mark], headers={"Origin": "http://evil.example"})[0] == 403
        assert post(address, "/ex01/bob", [("token", token), *mark], headers={"Host": "evil.example"})[0] == 421
        assert post(address, "/ex01/bob", [("token", token), *mark], headers={"Cookie": ""})[0] == 403  # no key
        status, location = post(address, "/ex01/bob", [("token", token), ("item", "scope"), ("own", "typo"), ("action", "save")])
        assert status == 303 and location.startswith("/ex01/bob?error=") and "not%20a%20comment%20id" in location
        assert audit_rows(written_copy["course"], written_copy["out"]) == []
