"""Root without namespaces (Docker's default seccomp profile, as on Gradescope): student processes still drop to a uid of their own.

The mode needs a Python every user can read; root's default Python here is not, so this test
builds a venv on Debian's system Python (skipped where there is none) and turns namespaces off
with GRADE_SANDBOX_NAMESPACES=off.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from conftest import ROOT

SYSTEM_PYTHON = Path("/usr/bin/python3")
pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or os.geteuid() != 0 or not SYSTEM_PYTHON.exists(),
    reason="the uid-only mode is for root on Linux; it needs a Python every user can read",
)

PROBE = '''import os

def lstm_step(**inputs):
    seen = []
    for path in {secrets!r}:
        try:
            open(path).read(1)
            seen.append("read " + path)
        except OSError:
            seen.append("refused " + path)
    try:
        os.kill(1, 9)
        seen.append("signalled pid 1")
    except OSError:
        seen.append("could not signal pid 1")
    raise RuntimeError(f"uid={{os.getuid()}}; " + "; ".join(seen))


def gru_step(**inputs):
    raise RuntimeError("unused")
'''


@pytest.fixture(scope="module")
def shared_tmp():
    """A folder every user may enter (pytest's own are private to root): the student's uid must read the venv's torch."""
    folder = Path(tempfile.mkdtemp(prefix="grade-uid-test-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def system_venv(shared_tmp) -> Path:
    version = subprocess.run([SYSTEM_PYTHON, "-c", "import sys; print(sys.version_info >= (3, 11))"],
                             capture_output=True, text=True)
    if version.stdout.strip() != "True":
        pytest.skip("the system Python is older than 3.11")
    venv = shared_tmp / "venv"
    subprocess.run([SYSTEM_PYTHON, "-m", "venv", str(venv)], check=True)
    install = subprocess.run([venv / "bin" / "pip", "install", "-q", "torch==2.13.0", str(ROOT)],
                             capture_output=True, text=True, timeout=900)
    assert install.returncode == 0, install.stderr[-3000:]
    return venv


def grade(venv: Path, *args: str) -> subprocess.CompletedProcess:
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "GRADE_SANDBOX_NAMESPACES": "off", "COLUMNS": "200"}
    return subprocess.run([venv / "bin" / "grade", *args], cwd=ROOT, capture_output=True, text=True, env=env, timeout=600)


def test_doctor_reports_the_uid_without_namespaces(system_venv):
    """Does grade doctor say the uid is on and the namespaces off, with why?"""
    out = grade(system_venv, "doctor").stdout
    assert "on  unprivileged uid: a uid per check, RLIMIT_NPROC, in a private folder" in out, out
    assert "off no network: namespaces turned off" in out, out


def test_student_process_runs_as_its_own_uid(system_venv, shared_tmp):
    """Without namespaces, is the student's code an unprivileged uid that cannot read root's files or signal pid 1?"""
    secret = shared_tmp / "root-only.txt"
    secret.write_text("the grader's")
    secret.chmod(0o600)
    folder = shared_tmp / "sub" / "ex05_gated_steps"
    folder.mkdir(parents=True)
    (folder / "gated.py").write_text(PROBE.format(secrets=[str(secret)]))
    done = grade(system_venv, "run", "ex05", "-s", str(shared_tmp / "sub"), "--json")
    assert done.returncode == 0, done.stderr
    output = " ".join(t["output"] for t in json.loads(done.stdout)["tests"])
    assert "uid=0" not in output and "uid=" in output, output
    assert f"refused {secret}" in output and "could not signal pid 1" in output, output


def test_reference_scores_full_marks_as_its_own_uid(system_venv):
    """Does the reference still get every point when its process runs as an unprivileged uid in a private folder?"""
    done = grade(system_venv, "run", "ex05", "ex06", "-s", str(ROOT / "solutions"), "--json")
    doc = json.loads(done.stdout)
    assert doc["score"] == doc["max_score"] == 24, [t for t in doc["tests"] if t["status"] == "failed"]
