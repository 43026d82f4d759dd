"""torch's portable cache artifacts: --cache-artifacts save:PATH / load:PATH
(docs/measuring.md, "Cold starts")."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import assert_well_formed, gallery, run_probe

from compilescope_probe.settings import BadArguments, Settings, parse


def test_as_event_leaves_the_key_out_unless_asked():
    assert "cache_artifacts" not in Settings(model="m.py").as_event()
    s = Settings(model="m.py", cache_artifacts="load:/tmp/a.bin")
    assert s.as_event()["cache_artifacts"] == "load:/tmp/a.bin"
    assert s.artifacts_action == ("load", "/tmp/a.bin")


@pytest.mark.parametrize(
    "argv",
    [
        ["--cache-artifacts", "keep:/tmp/a"],
        ["--cache-artifacts", "load:"],
        ["--cache-artifacts", "/tmp/a"],
        ["--cache-artifacts", "load:/tmp/a", "--warm-cache"],
        ["--cache-artifacts", "save:/tmp/a", "--batch-sizes", "1,2"],
    ],
)
def test_bad_cache_artifacts_arguments_are_refused(argv):
    with pytest.raises(BadArguments):
        parse(["--model", "m.py", *argv])


def _fails_naming(run, path: Path) -> dict:
    assert_well_formed(run)
    assert run.events[-1]["status"] == "failed", run.describe()
    errors = [e for e in run.errors() if e["kind"] == "cache_artifacts"]
    assert errors, run.describe()
    assert str(path) in errors[0]["message"]
    # A clear error, not a crash (torch's own log may still warn on stderr).
    assert not [e for e in run.errors() if e["kind"] == "internal"], run.describe()
    assert not run.of("compile_time"), "nothing may compile after a failed load"
    return errors[0]


def test_a_missing_artifacts_file_is_a_clear_error(tmp_path):
    missing = tmp_path / "nothing-here.bin"
    run = run_probe(
        gallery("mlp"), "--warmup", "1", "--iters", "1", "--cache-artifacts", f"load:{missing}"
    )
    err = _fails_naming(run, missing)
    assert "Cannot read" in err["message"]


def test_a_corrupt_artifacts_file_is_a_clear_error(tmp_path):
    corrupt = tmp_path / "corrupt.bin"
    corrupt.write_bytes(b"not torch cache artifacts \x00\x01\x02" * 10)
    run = run_probe(
        gallery("mlp"), "--warmup", "1", "--iters", "1", "--cache-artifacts", f"load:{corrupt}"
    )
    err = _fails_naming(run, corrupt)
    assert "load_cache_artifacts" in err["message"]


def test_eager_saves_nothing_and_says_so(tmp_path):
    out = tmp_path / "a.bin"
    run = run_probe(
        gallery("mlp"),
        "--mode",
        "eager",
        "--warmup",
        "1",
        "--iters",
        "1",
        "--cache-artifacts",
        f"save:{out}",
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    saved = run.one("cache_artifacts")
    assert saved["action"] == "save" and saved["bytes"] == 0
    assert "no cache artifacts" in saved["message"]
    assert not out.exists()


@pytest.mark.slow
def test_saved_artifacts_load_before_the_first_compile_and_count_in_it(tmp_path):
    path = tmp_path / "sub" / "artifacts.bin"
    common = ("--warmup", "2", "--iters", "3", "--threads", "1")
    save = run_probe(gallery("mlp"), *common, "--cache-artifacts", f"save:{path}")
    assert_well_formed(save)
    assert save.events[-1]["status"] == "ok", save.describe()
    saved = save.one("cache_artifacts")
    assert saved["action"] == "save" and saved["path"] == str(path)
    assert saved["bytes"] == path.stat().st_size > 0
    assert {e["kind"] for e in saved["entries"]} >= {"inductor"}
    # The save comes after the compiled calls.
    types = [e["type"] for e in save.events]
    assert types.index("cache_artifacts") > types.index("compile_time")

    load = run_probe(gallery("mlp"), *common, "--cache-artifacts", f"load:{path}")
    assert_well_formed(load)
    assert load.events[-1]["status"] == "ok", load.describe()
    loaded = load.one("cache_artifacts")
    assert loaded["action"] == "load" and loaded["bytes"] == saved["bytes"]
    assert loaded["ns"] > 0
    types = [e["type"] for e in load.events]
    assert types.index("cache_artifacts") < types.index("phase")  # before the model loads
    ct = load.one("compile_time")
    names = [p["name"] for p in ct["phases"]]
    assert names[0] == "load_cache_artifacts"
    assert ct["phases"][0]["seconds"] == pytest.approx(loaded["ns"] / 1e9)
    first = next(c for c in load.calls() if c["first_call"])
    # The first call's figure is what the program paid: the load, then the call.
    assert ct["first_call_ns"] == first["wall_ns"] + loaded["ns"]
    assert sum(p["seconds"] for p in ct["phases"]) == pytest.approx(
        ct["first_call_ns"] / 1e9, rel=1e-6
    )
    # The fresh cache found the loaded graph: Inductor generated no code again.
    codegen = next(p["seconds"] for p in ct["phases"] if p["name"] == "inductor_codegen")
    assert codegen == 0
