"""Interpreters that misbehave, picked with --python: each ends in a clear
error naming the path and what to do, never a hang or a blank. The probe is
the real one; the bad interpreters and torch packages are fakes made here."""

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GALLERY, validate_report


def run_with(cli, tmp_path, python, *extra, env_extra=None, timeout=120):
    out = tmp_path / "report.json"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    env.update(env_extra or {})
    proc = subprocess.run(
        [str(cli), "run", GALLERY / "mlp.py", "--settings", "eager", "--iters", "3"]
        + ["--python", str(python), "--json", str(out), *extra],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )
    assert proc.returncode == 2, proc.stderr
    run = validate_report(json.loads(out.read_text()))["runs"][0]
    assert run["error"]["message"], run
    return proc, run


def test_a_folder_names_the_python_inside_it(cli, tmp_path):
    venv = tmp_path / "env"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    _, run = run_with(cli, tmp_path, venv)
    assert run["status"] == "failed"
    message = run["error"]["message"]
    assert f'"{venv}" is a folder' in message and f'"{venv}/bin/python"' in message, message


def test_a_file_without_execute_permission_says_chmod(cli, tmp_path):
    python = tmp_path / "python"
    python.write_text('#!/bin/sh\nexec python3 "$@"\n')
    python.chmod(stat.S_IRUSR | stat.S_IWUSR)
    _, run = run_with(cli, tmp_path, python)
    assert run["status"] == "failed"
    assert f'chmod +x "{python}"' in run["error"]["message"], run["error"]


def test_python_2_is_named_with_the_version_needed(cli, tmp_path):
    # Behaves as python2 does: says its version on stderr, and fails on the
    # probe's Python 3 syntax with a SyntaxError before any event.
    python = tmp_path / "python2"
    python.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "Python 2.7.18" >&2; exit 0; fi\n'
        'echo "  File \\"compilescope_probe/main.py\\", line 7" >&2\n'
        'echo "SyntaxError: future feature annotations is not defined" >&2\n'
        "exit 1\n"
    )
    python.chmod(0o755)
    _, run = run_with(cli, tmp_path, python)
    assert run["status"] == "failed"
    assert run["error"]["kind"] == "python_version"
    message = run["error"]["message"]
    assert f'"{python}" is Python 2.7' in message and "3.9 or newer" in message, message


def fake_torch(tmp_path: Path, body: str) -> dict:
    """A `torch` package ahead of the real one on the probe's path (PYTHONPATH)."""
    package = tmp_path / "site" / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(body)
    return {"PYTHONPATH": str(tmp_path / "site")}


def test_a_slow_torch_import_says_so_then_times_out(cli, tmp_path):
    env = fake_torch(tmp_path, "import time\ntime.sleep(60)\n")
    proc, run = run_with(cli, tmp_path, sys.executable, "--timeout", "14", env_extra=env)
    assert "importing torch" in proc.stderr
    assert "still importing torch" in proc.stderr, proc.stderr
    assert run["status"] == "timeout"
    assert "still importing torch" in run["error"]["message"], run["error"]


@pytest.mark.parametrize("signal_name", ["SIGSEGV", "SIGABRT"])
def test_a_torch_import_that_segfaults(cli, tmp_path, signal_name):
    env = fake_torch(tmp_path, f"import os, signal\nos.kill(os.getpid(), signal.{signal_name})\n")
    _, run = run_with(cli, tmp_path, sys.executable, env_extra=env)
    assert run["status"] == "crashed"
    message = run["error"]["message"]
    assert f"torch's import crashed ({signal_name}" in message, message
    assert '-c "import torch"' in message, message
