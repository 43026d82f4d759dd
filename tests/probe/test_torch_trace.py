"""--torch-trace DIR: torch's own structured trace (TORCH_TRACE) lands in DIR,
the file tlparse and compilescope's importer read; an unwritable DIR is said
once and the run goes on without it."""

from __future__ import annotations

import glob
import json
import os

from conftest import PROBE_PATH, assert_well_formed, fixture_model, gallery, run_probe

# aot_eager: Dynamo traces (and torch logs dynamo_start) without Inductor's compile time.
FAST = ("--backend", "aot_eager", "--warmup", "1", "--iters", "2")


def _trace_files(directory) -> list[str]:
    return glob.glob(os.path.join(str(directory), "dedicated_log_torch_trace_*.log"))


def _assert_traced(run, directory) -> None:
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert not run.errors(), run.describe()
    hello = run.events[0]
    assert hello["torch_trace"] == str(directory)
    assert hello["settings"]["torch_trace"] is not None
    files = _trace_files(directory)
    assert len(files) == 1, f"{files}\n{run.describe()}"
    with open(files[0], encoding="utf-8") as f:
        assert '{"dynamo_start":' in f.read()
    said = [e["message"] for e in run.of("log") if "TORCH_TRACE" in e["message"]]
    assert said == [f"torch's trace (TORCH_TRACE): {files[0]}"], run.describe()


def test_trace_written_into_a_new_directory(tmp_path):
    directory = tmp_path / "traces" / "today"  # parents made too
    run = run_probe(gallery("mlp"), *FAST, "--torch-trace", str(directory))
    _assert_traced(run, directory)


def test_trace_written_when_torch_was_imported_first(tmp_path):
    # A sitecustomize that imports torch: TORCH_TRACE is set too late for
    # torch to read it, so the probe adds the handler itself.
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text("import torch\n")
    directory = tmp_path / "traces"
    run = run_probe(
        gallery("mlp"),
        *FAST,
        "--torch-trace",
        str(directory),
        env={"PYTHONPATH": os.pathsep.join([str(PROBE_PATH), str(site)])},
    )
    _assert_traced(run, directory)


def test_unwritable_directory_is_said_and_the_run_goes_on(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("not a directory\n")
    directory = blocker / "traces"  # cannot be made, even by root
    run = run_probe(gallery("mlp"), *FAST, "--torch-trace", str(directory))
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert run.events[0]["torch_trace"] is None
    errors = run.errors()
    assert [e["kind"] for e in errors] == ["torch_trace_unwritable"], run.describe()
    assert errors[0]["fatal"] is False
    assert str(directory) in errors[0]["message"]
    assert len(run.calls()) == 3  # one warmup call, two measured
    assert not _trace_files(blocker.parent)


def test_a_model_called_by_keyword_says_what_the_probes_wrapper_hides(tmp_path):
    # Its dict inputs go through the probe's KeywordCall: the trace names the
    # wrapper's file, the keyword names and the model's forward, so that an
    # import tells values[1] as src_key_padding_mask (core/trace/rank_builder.cpp).
    directory = tmp_path / "traces"
    run = run_probe(fixture_model("padded_encoder"), *FAST, "--torch-trace", str(directory))
    _assert_traced(run, directory)
    with open(_trace_files(directory)[0], encoding="utf-8") as f:
        lines = f.read().splitlines()
    at = [i for i, line in enumerate(lines) if '"name": "compilescope_keyword_call"' in line]
    assert len(at) == 1, "the artifact is written once"
    payload = json.loads(lines[at[0] + 1].strip())
    assert payload["input_names"] == ["src", "src_key_padding_mask"]
    assert payload["wrapper_file"].endswith(os.path.join("compilescope_probe", "loader.py"))
    assert payload["root"]["function"] == "TransformerEncoder.forward"
    assert payload["root"]["file"].endswith("transformer.py")


def test_a_model_called_by_position_writes_no_keyword_call(tmp_path):
    directory = tmp_path / "traces"
    run = run_probe(gallery("mlp"), *FAST, "--torch-trace", str(directory))
    _assert_traced(run, directory)
    with open(_trace_files(directory)[0], encoding="utf-8") as f:
        assert "compilescope_keyword_call" not in f.read()
