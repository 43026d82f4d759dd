"""Options and shared fixtures of the report tests (run by ctest: see CMakeLists.txt)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cli", help="path of compilescope-cli")
    parser.addoption("--hostile-tool", help="path of make_hostile_report")
    parser.addoption("--reports-dir", help="where the tests keep every report they write")
    parser.addoption("--fixtures-dir", help="tests/fixtures")
    parser.addoption("--schema", help="resources/report.schema.json")
    parser.addoption("--out", help="a folder for pages and screenshots to look at")


def _path_option(config: pytest.Config, name: str) -> Path:
    value = config.getoption(name)
    if not value:
        pytest.fail(
            f"--{name.replace('_', '-')} is required (ctest passes it; see tests/reports/CMakeLists.txt)"
        )
    return Path(value)


@pytest.fixture(scope="session")
def cli(pytestconfig: pytest.Config) -> Path:
    return _path_option(pytestconfig, "cli")


@pytest.fixture(scope="session")
def hostile_tool(pytestconfig: pytest.Config) -> Path:
    return _path_option(pytestconfig, "hostile_tool")


@pytest.fixture(scope="session")
def reports_dir(pytestconfig: pytest.Config) -> Path:
    path = _path_option(pytestconfig, "reports_dir")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def fixtures(pytestconfig: pytest.Config) -> Path:
    return _path_option(pytestconfig, "fixtures_dir")


@pytest.fixture(scope="session")
def out_dir(pytestconfig: pytest.Config) -> Path:
    path = _path_option(pytestconfig, "out")
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture(scope="session")
def schema(pytestconfig: pytest.Config) -> dict:
    return json.loads(_path_option(pytestconfig, "schema").read_text())


@pytest.fixture(scope="session")
def chromium_binary() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium on PATH: packaging/install-deps.sh installs Debian's chromium")
