"""compilescope-cli against ssh://127.0.0.1:PORT: a private sshd (conftest's `sshd`),
the real CLI, the real probe and torch on CPU. On loopback the remote
interpreter is this test's own, so the host has torch."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import GALLERY, CliResult

# The remote interpreter: on loopback the venv that runs these tests.
PYTHON = sys.executable
SHORT = ("--device", "cpu", "--warmup", "2", "--iters", "5")


def remote(sshd, *, config=None, python=PYTHON, target=None):
    return (
        "--target",
        target or sshd.target,
        "--ssh-config",
        config or sshd.client_config,
        "--python",
        python,
    )


def probe_dirs(sshd):
    return sorted((sshd.cache_dir / "compilescope").glob("probe-*"))


def processes_with(text):
    """(pid, argv) of every process but this one whose command line contains `text`."""
    found = []
    needle = os.fsencode(text)
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            raw = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if needle in raw:
            found.append((int(entry), [os.fsdecode(a) for a in raw.split(b"\0") if a]))
    return found


def probe_pids(model_path):
    """The probe processes (the interpreter itself, not ssh or a shell) running this model."""
    python = os.path.realpath(PYTHON)
    pids = []
    for pid, _ in processes_with(str(model_path)):
        try:
            if os.path.realpath(f"/proc/{pid}/exe") == python:
                pids.append(pid)
        except OSError:
            pass
    return pids


def wait_for(predicate, timeout, what):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.05)
    pytest.fail(f"timed out after {timeout} s waiting for {what}")


def error_line(stderr, *words):
    """The one stderr line that holds every word (case-insensitive), or None."""
    for line in stderr.splitlines():
        if all(w.lower() in line.lower() for w in words):
            return line
    return None


# A model that runs as long as asked: each call sleeps 50 ms and, once the
# measured calls have begun, writes STARTED beside itself so a test knows the
# probe is mid-measure.
SLOW_MODEL = """\
import pathlib, time, torch
STARTED = pathlib.Path(__file__).with_name("started")
calls = 0
class M(torch.nn.Module):
    def forward(self, x):
        global calls
        calls += 1
        if calls == 8:
            STARTED.write_text("x")
        time.sleep(0.05)
        return x + 1
def get_model():
    return M()
def get_inputs():
    return (torch.randn(2, 2),)
"""


def slow_model(tmp_path, name):
    # A unique directory: its path finds this run's processes in /proc.
    directory = tmp_path / f"slow-{name}-{os.getpid()}-{time.monotonic_ns()}"
    directory.mkdir()
    model = directory / "slow.py"
    model.write_text(SLOW_MODEL)
    return model


def start_cli(cli, tmp_path, *args):
    """The CLI as a child this test can signal; returns (process, json path)."""
    json_path = tmp_path / "report.json"
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    proc = subprocess.Popen(
        [str(cli), *map(str, args), "--json", str(json_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    return proc, json_path


def finish(proc, json_path, timeout=60):
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"the CLI did not end within {timeout} s; stderr:\n{err}")
    result = CliResult(subprocess.CompletedProcess(proc.args, proc.returncode, out, err), json_path)
    if Path(json_path).exists():
        result.report  # noqa: B018 - validates against the schema
    return result


# -- run and compare on the gallery ------------------------------------------------


def test_run_mlp_remotely(run_cli, sshd):
    result = run_cli(
        "run", GALLERY / "mlp.py", "--settings", "eager,default", *SHORT, *remote(sshd)
    )
    assert result.returncode == 0, result.stderr
    report = result.report
    assert report["environment"]["target"] == sshd.target
    assert report["environment"]["torch"].startswith("2.")
    assert [r["setting"]["mode"] for r in report["runs"]] == ["eager", "default"]
    for run in report["runs"]:
        assert run["status"] == "ok", run["error"]
        assert len(run["latency"]["samples_ns"]) == 5
        assert len(run["latency"]["warmup_ns"]) == 2
    # The probe went into the host's cache ($XDG_CACHE_HOME, set by the fixture's sshd).
    assert len(probe_dirs(sshd)) == 1, list(sshd.cache_dir.rglob("*"))
    assert (probe_dirs(sshd)[0] / "compilescope_probe").is_dir()


def test_env_reaches_the_remote_probe_as_written(run_cli, sshd):
    odd = "dirty_decay_ms:0 'quoted' \"double\" $HOME `id`;"
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        *("--settings", "eager:env=MALLOC_ARENA_MAX=2", "--env", f"MALLOC_CONF={odd}"),
        *("--no-sweep", "--profile-calls", "0"),
        *SHORT,
        *remote(sshd),
    )
    assert result.returncode == 0, result.stderr
    (run,) = result.report["runs"]
    assert run["latency"]["host_faults"]["malloc_env"] == {
        "MALLOC_CONF": odd,
        "MALLOC_ARENA_MAX": "2",
    }


def test_compare_mlp_remotely(run_cli, sshd):
    result = run_cli(
        "compare", GALLERY / "mlp.py", "--settings", "eager,default", *SHORT, *remote(sshd)
    )
    assert result.returncode == 0, result.stderr
    assert "break-even" in result.stdout and "speedup (95% CI)" in result.stdout
    report = result.report
    assert report["environment"]["target"] == sshd.target
    assert [r["status"] for r in report["runs"]] == ["ok", "ok"]


def test_the_probe_is_copied_once(run_cli, sshd):
    args = ("run", GALLERY / "mlp.py", "--settings", "eager", *SHORT, *remote(sshd))
    first = run_cli(*args, json_name="first.json")
    assert first.returncode == 0, first.stderr
    (probe,) = probe_dirs(sshd)
    before = probe.stat()
    module = probe / "compilescope_probe" / "__main__.py"
    module_before = module.stat() if module.exists() else None

    second = run_cli(*args, json_name="second.json")
    assert second.returncode == 0, second.stderr
    assert probe_dirs(sshd) == [probe]
    after = probe.stat()
    assert (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)
    if module_before is not None:
        assert module.stat().st_mtime_ns == module_before.st_mtime_ns


# -- cancel, a killed probe, a cut connection ------------------------------------------


def _start_slow(cli, sshd, tmp_path, name):
    """Starts the slow model remotely and waits until its measured calls run."""
    model = slow_model(tmp_path, name)
    proc, json_path = start_cli(
        cli,
        tmp_path,
        "run",
        model,
        "--settings",
        "eager",
        "--device",
        "cpu",
        "--warmup",
        "2",
        "--iters",
        "100000",
        "--model-on",
        "remote",
        *remote(sshd),
    )
    try:
        wait_for(
            lambda: model.with_name("started").exists() or proc.poll() is not None,
            60,
            "the measured calls",
        )
        assert proc.poll() is None, proc.communicate()[1]
    except BaseException:
        proc.kill()
        raise
    return model, proc, json_path


def test_cancel_ends_every_remote_process_within_2_s(cli, sshd, tmp_path):
    model, proc, json_path = _start_slow(cli, sshd, tmp_path, "cancel")
    try:
        assert probe_pids(model), "no probe process found for the model"
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        # Local ssh, the remote shell and the probe: all of them, within 2 s.
        while processes_with(str(model.parent)) and time.monotonic() - sent < 2.0:
            time.sleep(0.05)
        left = processes_with(str(model.parent))
        assert not left, f"still running 2 s after SIGINT: {left}"
    finally:
        if proc.poll() is None:
            proc.kill()
    result = finish(proc, json_path)
    assert result.returncode != 0
    if json_path.exists():
        assert result.report["runs"][0]["status"] == "cancelled"


def _run_slow_and_interrupt(cli, sshd, tmp_path, name, interrupt):
    """Runs the slow model remotely, calls interrupt(model) mid-measure, returns the result."""
    model, proc, json_path = _start_slow(cli, sshd, tmp_path, name)
    try:
        time.sleep(1.0)  # ~20 more measured calls, several chunks sent
        interrupt(model)
        result = finish(proc, json_path)
    finally:
        if proc.poll() is None:
            proc.kill()
    return model, result


def test_a_probe_killed_mid_run_is_crashed_with_its_iterations(cli, sshd, tmp_path):
    def kill_probe(model):
        pids = probe_pids(model)
        assert pids, "no probe process found for the model"
        for pid in pids:
            os.kill(pid, signal.SIGKILL)

    def left_on_host():
        return sorted(p.name for p in sshd.tmp_dir.glob("compilescope-*"))

    def kill_probe_seen(model):
        # The probe's fresh cache is in the wrapper's folder while it runs...
        assert list(sshd.tmp_dir.glob("compilescope-run.*/compilescope-cache-*")), left_on_host()
        kill_probe(model)

    _, result = _run_slow_and_interrupt(cli, sshd, tmp_path, "killed", kill_probe_seen)
    assert result.returncode == 2, result.stderr
    run = result.report["runs"][0]
    assert run["status"] == "crashed", run["error"]
    assert len(run["latency"]["samples_ns"]) >= 5
    # ...and gone with it, though a SIGKILLed probe removes nothing itself.
    wait_for(lambda: not left_on_host(), 5, "the host's temporary folders to go")


def test_a_connection_cut_mid_run_is_disconnected_with_its_iterations(cli, sshd, tmp_path):
    def cut(model):
        assert sshd.cut_connections(), "no sshd connection to cut"

    model, result = _run_slow_and_interrupt(cli, sshd, tmp_path, "cut", cut)
    assert result.returncode != 0
    run = result.report["runs"][0]
    assert run["status"] == "disconnected", run["error"]
    assert len(run["latency"]["samples_ns"]) >= 5
    assert "127.0.0.1" in run["error"]["message"]
    # The probe lost its channel: it ends itself (its stdin is the lifeline).
    wait_for(lambda: not probe_pids(model), 5, "the orphaned probe to end")


# -- what a user gets wrong: one line on stderr that names the host -------------------


def _fails_with(result, *words):
    assert result.returncode != 0, result.stdout
    line = error_line(result.stderr, *words)
    assert line is not None, f"no stderr line holds {words}:\n{result.stderr}"
    return line


def test_wrong_key(run_cli, sshd):
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager",
        *SHORT,
        *remote(sshd, config=sshd.wrong_key_config()),
    )
    _fails_with(result, "127.0.0.1", "authentication")


def test_changed_host_key_is_never_accepted(run_cli, sshd):
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager",
        *SHORT,
        *remote(sshd, config=sshd.changed_host_key_config()),
    )
    _fails_with(result, "127.0.0.1", "host key")


def test_missing_remote_interpreter(run_cli, sshd, tmp_path):
    python = tmp_path / "no-such-venv" / "bin" / "python"
    result = run_cli(
        "run", GALLERY / "mlp.py", "--settings", "eager", *SHORT, *remote(sshd, python=python)
    )
    _fails_with(result, "127.0.0.1", str(python))


def test_remote_model_path_that_does_not_exist(run_cli, sshd, tmp_path):
    model = tmp_path / "not-there" / "model.py"
    result = run_cli(
        "run", model, "--settings", "eager", *SHORT, "--model-on", "remote", *remote(sshd)
    )
    _fails_with(result, "127.0.0.1", str(model))


def test_unknown_host(run_cli, sshd):
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager",
        *SHORT,
        *remote(sshd, target="ssh://no-such-host.invalid"),
    )
    _fails_with(result, "no-such-host.invalid")


def test_connection_refused(run_cli, sshd):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nobody listens once it is closed
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager",
        *SHORT,
        *remote(sshd, target=f"ssh://127.0.0.1:{closed}"),
    )
    _fails_with(result, "127.0.0.1", "refused")


# -- hostile model paths -----------------------------------------------------------------


def hostile_names(tmp_path):
    marker = tmp_path / "pwned"
    return marker, {
        "spaces": "a model dir/my model.py",
        "single quote": "it's/o'clock.py",
        "double quote": 'say "hi"/"m".py',
        "command substitution": f"$(touch {marker})/m$(touch {marker}).py",
        "semicolon": f"a;touch {marker};b/m;touch {marker}.py",
        "backticks": f"`touch {marker}`/`touch {marker}`.py",
        "newline": "line\nbreak/m\nodel.py",
        "non-ascii": "modèle ü 模型/réseau ✓.py",
    }


@pytest.mark.parametrize(
    "case",
    [
        "spaces",
        "single quote",
        "double quote",
        "command substitution",
        "semicolon",
        "backticks",
        "newline",
        "non-ascii",
    ],
)
def test_hostile_model_paths(run_cli, sshd, tmp_path, case):
    marker, names = hostile_names(tmp_path)
    model = tmp_path / "hostile" / names[case]
    model.parent.mkdir(parents=True)
    model.write_text((GALLERY / "mlp.py").read_text())
    for placement in ("remote", "local"):
        result = run_cli(
            "run",
            model,
            "--settings",
            "eager",
            "--device",
            "cpu",
            "--warmup",
            "1",
            "--iters",
            "2",
            "--model-on",
            placement,
            *remote(sshd),
            json_name=f"{placement}.json",
        )
        assert result.returncode == 0, f"--model-on {placement}: {result.stderr}"
        run = result.report["runs"][0]
        assert run["status"] == "ok", (placement, run["error"])
        assert not marker.exists(), f"--model-on {placement} ran a command from the path"
    assert not list(tmp_path.glob("pwned*"))
