"""A probe under the app sends its temporary files into the scratch folder the
runner removes, and keeps torch's per-user caches shared."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import PROBE_PATH, gallery

CHECK = r"""
import json, os, subprocess, sys, tempfile
from compilescope_probe.main import _confine_temp_files
_confine_temp_files(os.environ.get("COMPILESCOPE_CACHE_ROOT"))
_confine_temp_files(os.environ.get("COMPILESCOPE_CACHE_ROOT"))  # twice: no harm
from torch._inductor.runtime.cache_dir_utils import default_cache_dir
child = subprocess.run(
    [sys.executable, "-c", "import tempfile; print(tempfile.gettempdir())"],
    capture_output=True, text=True, check=True,
).stdout.strip()
print(json.dumps({
    "made": tempfile.mkdtemp(),
    "child": child,
    "torch_user_folder": os.path.realpath(default_cache_dir()),
}))
"""


def confined(tmp_path, root: str | None) -> dict:
    system_tmp = tmp_path / "system"
    system_tmp.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(PROBE_PATH), TMPDIR=str(system_tmp))
    env.pop("TORCHINDUCTOR_CACHE_DIR", None)
    if root is None:
        env.pop("COMPILESCOPE_CACHE_ROOT", None)
    else:
        env["COMPILESCOPE_CACHE_ROOT"] = root
    proc = subprocess.run(
        [sys.executable, "-c", CHECK], capture_output=True, text=True, env=env, timeout=120
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def test_temporary_files_go_into_the_scratch_folder_and_torchs_folder_stays_shared(tmp_path):
    scratch = tmp_path / "compilescope-run-x"
    scratch.mkdir()
    found = confined(tmp_path, str(scratch))
    assert found["made"].startswith(str(scratch / "tmp") + os.sep), found
    assert found["child"] == str(scratch / "tmp"), found  # compiler workers too
    shared = (tmp_path / "system").resolve()
    assert os.path.dirname(found["torch_user_folder"]) == str(shared), found
    assert os.path.basename(found["torch_user_folder"]).startswith("torchinductor_")


def test_without_a_scratch_folder_nothing_moves(tmp_path):
    found = confined(tmp_path, None)
    assert found["made"].startswith(str(tmp_path / "system") + os.sep), found
    found = confined(tmp_path, str(tmp_path / "gone"))  # a root that is not there
    assert found["child"] == str(tmp_path / "system"), found


@pytest.mark.slow
def test_a_probe_killed_while_torch_preprocesses_its_header_leaves_the_temp_directory_clean(
    tmp_path,
):
    """torch preprocesses its C++ header in a tempfile.TemporaryDirectory,
    which a SIGKILL leaves behind: it must be in the scratch folder."""
    system_tmp, scratch = tmp_path / "system", tmp_path / "scratch"
    system_tmp.mkdir()
    scratch.mkdir()
    env = dict(
        os.environ,
        PYTHONPATH=str(PROBE_PATH),
        TMPDIR=str(system_tmp),  # a fresh machine: the header gets built
        COMPILESCOPE_CACHE_ROOT=str(scratch),
    )
    probe = subprocess.Popen(
        [sys.executable, "-m", "compilescope_probe", "--model", str(gallery("mlp"))],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    preprocessing = []
    deadline = time.monotonic() + 240
    while not preprocessing and probe.poll() is None and time.monotonic() < deadline:
        preprocessing = [*system_tmp.glob("tmp*/header.hpp"), *scratch.glob("tmp/tmp*/header.hpp")]
        time.sleep(0.005)
    os.killpg(probe.pid, signal.SIGKILL)
    probe.wait()
    if not preprocessing:
        pytest.skip("this torch preprocesses no precompiled header")
    left = sorted(p.name for p in system_tmp.iterdir() if not p.name.startswith("torchinductor_"))
    assert left == [], f"killed while {preprocessing[0]} stood; left: {left}"
