"""Hostile model, report and output paths through compilescope-cli run
(tests/support/hostile_names.py): spaces, quotes, a newline, $(...), `...`,
';', non-ASCII and markup work end to end, nothing is executed, and the HTML
report shows the names escaped. A leading '-' works as a user should type it
(./-m.py), and the CLI says so when it is typed bare."""

import html
import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import GALLERY, validate_report
from hostile_names import hostile_names


def run(cli, *args, cwd=None, timeout=300):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    return subprocess.run(
        [str(cli), *map(str, args), "--python", sys.executable],
        capture_output=True,
        text=True,
        timeout=timeout,
        cwd=cwd,
        env=env,
    )


def nested(base: Path, names: dict[str, str], suffix: str) -> Path:
    """One path holding every hostile name: each case's folder nested in the
    last, the file named by all the cases' stems (keeps the CI cost to one run)."""
    folder = base
    stems = []
    for name in names.values():
        parent, _, stem = name.rpartition("/")
        folder = folder / parent
        stems.append(stem.replace("/", "_"))
    return folder / (" ".join(stems)[:120] + suffix)


def test_hostile_model_and_output_paths(cli, tmp_path):
    marker = tmp_path / "pwned"
    names = hostile_names(marker)
    model = nested(tmp_path / "models", names, ".py")
    json_out = nested(tmp_path / "out json", names, ".json")
    html_out = nested(tmp_path / "out html", names, ".html")
    for path in (model, json_out, html_out):
        path.parent.mkdir(parents=True)
    model.write_text((GALLERY / "mlp.py").read_text())
    result = run(
        cli,
        "run",
        model,
        "--settings",
        "eager",
        "--iters",
        "3",
        "--json",
        json_out,
        "--html",
        html_out,
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    report = validate_report(json.loads(json_out.read_text()))
    assert report["runs"][0]["status"] == "ok", report["runs"][0]["error"]
    assert report["model"]["spec"] == str(model)
    assert not marker.exists() and not list(tmp_path.rglob("pwned")), "a name was run as a command"
    page = html_out.read_text()
    for case, name in names.items():
        stem = name.rpartition("/")[2]
        # Raw markup from a name never reaches the page's markup: it is escaped.
        if "<" in stem or '"' in stem:
            assert stem not in page, f"{case}: {stem!r} is in the HTML unescaped"
        if case in ("markup", "non-ascii", "spaces"):
            assert html.escape(stem, quote=False) in page or html.escape(stem) in page, case
    assert "<b>m<i>" not in page and "&lt;b&gt;m&lt;i&gt;" in page


def test_a_leading_dash(cli, tmp_path):
    model = tmp_path / "-m.py"
    model.write_text((GALLERY / "mlp.py").read_text())
    # Bare, it reads as options: the CLI says what to type instead.
    bare = run(cli, "run", "-m.py", "--settings", "eager", cwd=tmp_path)
    assert bare.returncode == 1
    assert "./-m.py" in bare.stderr and "--" in bare.stderr, bare.stderr
    # What a user should type: ./-m.py, and outputs the same way.
    result = run(
        cli,
        "run",
        "./-m.py",
        "--settings",
        "eager",
        "--iters",
        "3",
        "--json",
        "./-out.json",
        "--html",
        "./-out.html",
        cwd=tmp_path,
    )
    assert result.returncode == 0, result.stderr
    report = validate_report(json.loads((tmp_path / "-out.json").read_text()))
    assert report["runs"][0]["status"] == "ok"
    assert report["model"]["spec"] == str(model)
    assert (tmp_path / "-out.html").exists()
    # Options written after "--" are file names: the CLI says to put them first.
    late = run(cli, "run", "--", "./-m.py", "--settings", "eager", cwd=tmp_path)
    assert late.returncode == 1 and "put every option before --" in late.stderr, late.stderr
