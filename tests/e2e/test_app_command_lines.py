"""The first things a newcomer types: --help, and the GUI on a machine without a display."""

import os
import subprocess

from conftest import GALLERY


def no_display_env():
    env = dict(os.environ)
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        env.pop(name, None)
    return env


def run(binary, *args):
    return subprocess.run(
        [str(binary), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env=no_display_env(),
    )


def test_cli_help_is_the_usage_on_stdout_and_not_an_error(cli):
    for args in (["--help"], ["-h"], ["help"], ["run", GALLERY / "mlp.py", "--help"]):
        proc = run(cli, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert proc.stdout.startswith("usage: compilescope-cli run|compare MODEL"), args
        assert "unknown" not in (proc.stdout + proc.stderr).lower(), args


def test_cli_unknown_command_is_still_an_error_with_the_usage(cli):
    proc = run(cli, "profile", GALLERY / "mlp.py")
    assert proc.returncode == 1
    assert "unknown command: profile" in proc.stderr
    assert "usage: compilescope-cli" in proc.stderr


def test_gui_help_and_version_need_no_display(gui):
    version = run(gui, "--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.startswith("compilescope "), version.stdout
    helped = run(gui, "--help")
    assert helped.returncode == 0, helped.stderr
    assert "--modes" in helped.stdout and "--target" in helped.stdout


def test_gui_without_a_display_says_what_to_use_instead_of_aborting(gui):
    proc = run(gui, GALLERY / "mlp.py", "--run")
    # Qt alone aborts here (SIGABRT, -6) with "could not connect to display".
    assert proc.returncode == 2, (proc.returncode, proc.stderr)
    assert "no display" in proc.stderr
    assert "compilescope-cli run MODEL" in proc.stderr
    assert "could not connect" not in proc.stderr
