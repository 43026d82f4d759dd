"""The aoti setting's Python half: export refusals found like graph breaks,
AOTInductor packages given as the model, and a runner built for another
torch. The runner's own stream is tested in test_aoti_runner.py."""

from __future__ import annotations

import json
import os
import stat
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import PROBE_PATH, assert_well_formed, fixture_model, gallery, run_probe

sys.path.insert(0, str(PROBE_PATH))
from compilescope_probe import aoti  # noqa: E402


def line_of(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


@pytest.mark.slow
def test_data_dependent_branch_fails_to_export_at_its_line() -> None:
    model = gallery("data_dependent_branch")
    run = run_probe(model, "--mode", "aoti", "--warmup", "1", "--iters", "3")
    assert_well_formed(run)
    failure = run.one("export_failure")
    assert failure["category"] == "data_dependent", failure
    assert os.path.realpath(failure["file"]) == os.path.realpath(model)
    assert failure["line"] == line_of(model, "if h.sum() > 0")
    assert "torch.cond" in failure["remedy"]
    assert failure["strict"] is False
    error = run.one("error")
    assert error["kind"] == "export_failed"
    assert f"data_dependent_branch.py:{failure['line']}" in error["message"]
    assert run.events[-1]["status"] == "failed"
    # Nothing is packaged for a model that does not export.
    assert not [e for e in run.of("phase") if e["name"] == "package"]


@pytest.mark.slow
def test_numpy_call_is_an_unsupported_call_at_its_line() -> None:
    model = gallery("numpy_break")
    run = run_probe(model, "--mode", "aoti", "--warmup", "1", "--iters", "3")
    failure = run.one("export_failure")
    assert failure["category"] == "unsupported", failure
    assert failure["line"] == line_of(model, ".numpy()"), failure
    assert "torch operations" in failure["remedy"]


@pytest.mark.slow
def test_a_library_detectors_refusal_is_placed_in_the_library_and_kept_short() -> None:
    # As torchvision's SSD: the branch is in site-packages, on a sum of one
    # unbacked size per class, which torch prints in full, twice.
    model = fixture_model("library_detector")
    detector = model.parent / "site-packages" / "fakelib" / "detector.py"
    run = run_probe(model, "--mode", "aoti", "--warmup", "1", "--iters", "3")
    failure = run.one("export_failure")
    assert failure["category"] == "data_dependent", failure
    assert os.path.realpath(failure["file"]) == os.path.realpath(detector)
    assert failure["line"] == line_of(detector, "if total > 4000")
    assert "(12 terms) > 4000" in failure["reason"], failure["reason"]
    assert "unhinted" not in failure["reason"] and "Size-like" not in failure["reason"]
    assert "fakelib's code" in failure["remedy"] and "torch.cond" in failure["remedy"]
    message = run.one("error")["message"]
    assert "detector.py:" in message and len(message) < 1000, message
    # The traceback keeps torch's whole words.
    assert "unhinted" in run.one("error")["traceback"]


def fake_package(folder: Path, name: str = "model.pt2") -> Path:
    path = folder / name
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("model/data/aotinductor/model/abc.wrapper.so", b"\x7fELF")
        z.writestr("model/archive_format", "pt2")
    return path


def test_a_package_is_told_from_an_export_archive(tmp_path: Path) -> None:
    assert aoti.is_aoti_package(str(fake_package(tmp_path)))
    archive = tmp_path / "exported.pt2"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("exported/models/model.json", "{}")
    assert not aoti.is_aoti_package(str(archive))
    garbage = tmp_path / "garbage.pt2"
    garbage.write_bytes(os.urandom(256))
    assert not aoti.is_aoti_package(str(garbage))
    assert aoti.inputs_beside("/x/model.pt2") == "/x/model.inputs.pt"


def test_a_package_runs_only_under_aoti(tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    run = run_probe(package, "--mode", "default", "--iters", "3")
    assert_well_formed(run)
    error = run.one("error")
    assert error["kind"] == "aoti_package_needs_aoti"
    assert str(package) in error["message"] and "--settings aoti" in error["message"]


def test_a_package_without_inputs_says_where_to_put_them(tmp_path: Path) -> None:
    package = fake_package(tmp_path)
    run = run_probe(package, "--mode", "aoti", "--iters", "3")
    assert_well_formed(run)
    error = run.one("error")
    assert error["kind"] == "missing_get_inputs"
    assert str(tmp_path / "model.inputs.pt") in error["message"]
    assert "torch.save" in error["message"]


def test_batch_sizes_do_not_go_with_aoti() -> None:
    run = run_probe(gallery("mlp"), "--mode", "aoti", "--batch-sizes", "1,2")
    assert_well_formed(run)
    error = run.one("error")
    assert error["kind"] == "bad_arguments"
    assert "aoti" in error["message"]


def fake_runner(folder: Path, torch_version: str) -> Path:
    path = folder / "compilescope-aoti-runner"
    path.write_text(
        "#!/bin/sh\n"
        f"echo '{json.dumps({'runner': '0', 'torch': torch_version, 'protocol': 1, 'cuda': False})}'\n"
    )
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


@pytest.mark.slow
def test_runner_for_another_torch_without_a_compiler_says_both_versions(tmp_path: Path) -> None:
    runner = fake_runner(tmp_path, "1.0.0")
    empty_bin = tmp_path / "bin"
    empty_bin.mkdir()
    run = run_probe(
        gallery("mlp"),
        "--mode",
        "aoti",
        "--iters",
        "3",
        env={
            aoti.RUNNER_ENV: str(runner),
            "PATH": str(empty_bin),  # no cmake, no c++
            "CXX": "",
            "XDG_CACHE_HOME": str(tmp_path / "cache"),
        },
    )
    assert_well_formed(run)
    error = run.one("error")
    assert error["kind"] == "aoti_runner_mismatch", run.describe()
    assert "1.0.0" in error["message"]
    torch_version = run.one("hello")["torch"]
    assert torch_version in error["message"]
    assert "cmake" in error["message"]


def test_export_failure_categories_from_torch_exceptions() -> None:
    class GuardOnDataDependentSymNode(RuntimeError):
        pass

    class Unsupported(RuntimeError):
        pass

    dd = GuardOnDataDependentSymNode("Could not guard on data-dependent expression Eq(u0, 1)")
    assert aoti._category(dd, "if x.sum() > 0:") == "data_dependent"
    assert aoti._category(dd, "n = int(x.max().item())") == "item"
    assert aoti._category(Unsupported("call_function numpy"), "y = f(x)") == "unsupported"
    violation = RuntimeError("Constraints violated (batch)! The values of batch must ...")
    assert aoti._category(violation, "") == "dynamic_shape"
    assert aoti._category(ValueError("something else"), "") == "other"
    # transformers' T5 returns its cache object unless use_cache=False.
    cache = RuntimeError(
        "Found <class 'transformers.cache_utils.EncoderDecoderCache'> in output, which is not a "
        "known type. If this type holds tensors, you need to register a pytree for it."
    )
    assert aoti._category(cache, "") == "pytree_type"
    assert "use_cache=False" in aoti._REMEDIES["pytree_type"]
    reason = aoti._reason(RuntimeError("first paragraph\nstill first\n\nlong hints"))
    assert reason == "RuntimeError: first paragraph\nstill first"
