"""End-to-end tests drive the real compilescope-cli, the real probe and torch on CPU."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GALLERY = ROOT / "resources" / "models"
REPORT_SCHEMA = ROOT / "resources" / "report.schema.json"

sys.path.insert(0, str(ROOT / "tests" / "support"))
import sshd_fixture  # noqa: E402 - found through the path above


def validate_report(doc):
    """Every report an end-to-end run writes must match the documented format (docs/report-format.md)."""
    import jsonschema

    jsonschema.Draft202012Validator(json.loads(REPORT_SCHEMA.read_text())).validate(doc)
    return doc


def pytest_addoption(parser):
    parser.addoption(
        "--cli",
        default=str(ROOT / "build" / "app" / "compilescope-cli"),
        help="path of the compilescope-cli binary under test",
    )
    parser.addoption(
        "--gui",
        default=str(ROOT / "build" / "app" / "compilescope"),
        help="path of the compilescope GUI binary under test (absent: those tests skip)",
    )


@pytest.fixture(scope="session")
def cli(request):
    path = Path(request.config.getoption("--cli"))
    if not path.exists():
        pytest.fail(f"{path} does not exist: build first (scripts/build.sh)")
    return path


class CliResult:
    def __init__(self, proc, json_path):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json_path = json_path

    @property
    def report(self):
        return validate_report(json.loads(Path(self.json_path).read_text()))


@pytest.fixture(scope="session")
def gui(request):
    path = Path(request.config.getoption("--gui"))
    if not path.exists():
        pytest.skip(f"{path} does not exist: the GUI is not built (COMPILESCOPE_BUILD_GUI=OFF)")
    return path


@pytest.fixture
def run_cli(cli, tmp_path):
    """Runs `compilescope-cli ARGS --json tmp/report.json` and returns the result."""

    def run(*args, timeout=900, json_name="report.json", prefix=()):
        json_path = tmp_path / json_name
        env = dict(os.environ)
        env.pop("DISPLAY", None)
        proc = subprocess.run(
            [*prefix, str(cli), *map(str, args), "--json", str(json_path)],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
        )
        if json_path.exists():
            validate_report(json.loads(json_path.read_text()))
        return CliResult(proc, json_path)

    return run


@pytest.fixture(scope="session")
def sshd():
    """A private sshd on 127.0.0.1 (tests/support/sshd_fixture.py), one for the session.

    Never skipped: when sshd cannot start, the tests that need it fail with its log.
    """
    try:
        server = sshd_fixture.Sshd()
    except sshd_fixture.SshdError as error:
        pytest.fail(f"could not start sshd: {error}", pytrace=False)
    yield server
    server.stop()
