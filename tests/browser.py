"""A page opened in a real headless browser (Debian's chromium): what it logged to its console, what it asked of the
network, its DOM after loading, and a screenshot. Tests that need it skip, saying why, where chromium is missing."""

import json
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needed = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; .ci/run installs it where apt is available)")
_QUIET = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-default-apps",
    "--hide-scrollbars",
    "--disable-features=Translate,OptimizationHints,MediaRouter,SpellCheck",
    # Nothing reaches another machine, whatever asks: every name resolves nowhere (but this machine's own address, where
    # a page the tests serve lives), every proxy is closed.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
    "--proxy-server=127.0.0.1:9",
    "--enable-logging=stderr",
    "--v=0",
]


@dataclass
class Visit:
    console: list[str]  # every message the page logged (a script's, a refused load's, a policy violation's)
    requests: list[str]  # every URL the page asked of the network (not file: or data:)
    dom: str  # the document as serialized after loading
    screenshot: bytes  # PNG


def visit(page: Path | str, *, width: int = 1200, height: int = 2400) -> Visit:
    """Open `page` (a file, or the URL of a page served on this machine) in chromium twice, in a window of `width` ×
    `height` – once dumping its DOM, once taking a screenshot of the window – with a net log."""
    work = Path(tempfile.mkdtemp(prefix="browser-"))
    try:
        netlog, shot = work / "net.json", work / "shot.png"
        common = [CHROMIUM, *_QUIET, f"--user-data-dir={work / 'profile'}", f"--log-net-log={netlog}", f"--window-size={width},{height}"]
        address = page if isinstance(page, str) else page.resolve().as_uri()
        dumped = subprocess.run([*common, "--dump-dom", address], capture_output=True, text=True, timeout=120)
        console = [line for line in dumped.stderr.splitlines() if ":CONSOLE" in line]
        requests = _page_requests(netlog)
        taken = subprocess.run([*common, f"--screenshot={shot}", address], capture_output=True, text=True, timeout=120)
        assert shot.is_file(), taken.stderr[-2000:]
        return Visit(console, requests + _page_requests(netlog), dumped.stdout, shot.read_bytes())
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _page_requests(netlog: Path) -> list[str]:
    """The URLs that a page (not the browser itself: its requests have no origin) started loading."""
    log = json.loads(netlog.read_text() or "{}") if netlog.is_file() else {}
    if not log:
        return []
    start = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    started = [e.get("params", {}) for e in log.get("events", []) if e["type"] == start]
    return [p["url"] for p in started if "url" in p and p.get("initiator") != "not an origin" and not p["url"].startswith(("file:", "data:"))]


def pixels_of(screenshot: bytes, rgb: tuple[int, int, int], *, tolerance: int = 12) -> int:
    """How many pixels of the screenshot (PNG) have about this colour."""
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(screenshot)).convert("RGB")
    return sum(n for n, colour in image.getcolors(image.width * image.height) if all(abs(a - b) <= tolerance for a, b in zip(colour, rgb)))
