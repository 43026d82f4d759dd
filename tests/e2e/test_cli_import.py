"""compilescope-cli import on real TORCH_TRACE logs, written in the test by the
project's own torch on CPU: one process checked against torch._dynamo.explain,
two torchrun ranks that diverge, and paths that hold no trace.

aot_eager keeps the compiles quick: the records that carry breaks, graphs and
recompiles are Dynamo's, written the same with any backend."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GALLERY, ROOT, validate_report

MAKER = ROOT / "benchmarks" / "trace_log" / "make_trace_log.py"

# One function, two graph breaks (print, .item() with capture_scalar_outputs
# off), called twice on one input and once on a new shape. Then, with the trace
# logger switched off so its compiles stay out of the log, explain on one call.
TRACED = """
import json, logging, sys
import torch
import torch._dynamo

torch._dynamo.config.capture_scalar_outputs = False


def body(x, w):
    y = torch.relu(x @ w)
    print("between the graphs")
    s = y.sum().item()
    return torch.tanh(y * s)


w = torch.randn(8, 8)
x = torch.randn(4, 8)
compiled = torch.compile(body, backend="aot_eager")
compiled(x, w)
compiled(x, w)  # the same input: no compile (a new x would change s, a guarded float)
compiled(torch.randn(6, 8), w)  # a new shape: every frame recompiles

logging.getLogger("torch.__trace").disabled = True
torch._dynamo.reset()
e = torch._dynamo.explain(body)(x, w)
with open(sys.argv[1], "w") as f:
    json.dump({"graph_count": e.graph_count, "graph_break_count": e.graph_break_count}, f)
"""


def torch_env(tmp: Path, trace_dir: Path) -> dict:
    env = dict(os.environ)
    env.update(
        TORCH_TRACE=str(trace_dir),
        TORCHINDUCTOR_CACHE_DIR=str(tmp / "inductor_cache"),
        OMP_NUM_THREADS="1",
    )
    return env


def import_trace(cli, path, json_path: Path):
    env = dict(os.environ)
    env.pop("DISPLAY", None)
    return subprocess.run(
        [str(cli), "import", str(path), "--json", str(json_path)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def records(log: Path):
    """The JSON header of every record of a trace file (payload lines skipped)."""
    for line in log.read_text().splitlines():
        if line.startswith("\t") or "] {" not in line:
            continue
        yield json.loads(line[line.index("] {") + 2 :])


def first_compile(compile_id: str) -> bool:
    """True for a first compile of its frame: 1/0 and 1/0_1 (its restart), not 1/1."""
    m = re.search(r"\d+/(\d+)", compile_id)
    return bool(m) and m.group(1) == "0"


def trace_counts(log: Path) -> dict:
    """What the log itself says, in total and for the first compile of each frame
    (frame_compile_id 0: what one call compiles, which is what explain sees)."""
    counts = dict(graphs=0, breaks=0, recompiles=0, first_graphs=0, first_breaks=0)
    for r in records(log):
        first = r.get("frame_compile_id") == 0
        if "dynamo_output_graph" in r:
            counts["graphs"] += 1
            counts["first_graphs"] += first
        if r.get("artifact", {}).get("name") == "dynamo_graph_break_reason":
            counts["breaks"] += 1
            counts["first_breaks"] += first
        if (r.get("compilation_metrics") or {}).get("recompile_reason"):
            counts["recompiles"] += 1
    return counts


@pytest.fixture(scope="module")
def one_process(cli, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("one_process")
    trace_dir = tmp / "trace"
    script = tmp / "traced.py"
    script.write_text(TRACED)
    explain_json = tmp / "explain.json"
    traced = subprocess.run(
        [sys.executable, str(script), str(explain_json)],
        capture_output=True,
        text=True,
        timeout=300,
        env=torch_env(tmp, trace_dir),
    )
    assert traced.returncode == 0, traced.stderr[-4000:]
    logs = list(trace_dir.glob("dedicated_log_torch_trace_*.log"))
    assert len(logs) == 1, logs
    out = tmp / "report.json"
    proc = import_trace(cli, trace_dir, out)
    assert proc.returncode == 0, proc.stderr
    report = validate_report(json.loads(out.read_text()))
    return report, json.loads(explain_json.read_text()), trace_counts(logs[0])


def test_one_process_is_one_imported_run(one_process):
    report, _explain, _counts = one_process
    assert len(report["runs"]) == 1
    assert report["runs"][0]["status"] == "imported"


def test_breaks_and_graphs_agree_with_explain(one_process):
    report, explain, counts = one_process
    run = report["runs"][0]
    assert (explain["graph_count"], explain["graph_break_count"]) == (3, 2)
    # explain counts one call: the first compile of each frame in the log (the
    # original function and its two resume functions) holds exactly that.
    assert counts["first_graphs"] == explain["graph_count"]
    assert counts["first_breaks"] == explain["graph_break_count"]
    # The new shape compiles every frame again, breaks included: the log holds
    # twice explain's counts, and the report all of them.
    assert counts["graphs"] == 2 * explain["graph_count"]
    assert counts["breaks"] == 2 * explain["graph_break_count"]
    assert len(run["graphs"]) == counts["graphs"]
    assert len(run["graph_breaks"]) == counts["breaks"]
    first = [g for g in run["graphs"] if first_compile(g["compile_id"])]
    assert len(first) == explain["graph_count"], [g["compile_id"] for g in run["graphs"]]
    for b in run["graph_breaks"]:
        assert b["reason"].strip()
    reasons = " ".join(b["reason"] for b in run["graph_breaks"])
    assert "print" in reasons and "item" in reasons


def test_new_shape_recompiles_with_reasons(one_process):
    report, _explain, counts = one_process
    recompiles = report["runs"][0]["recompiles"]
    assert counts["recompiles"] == 3  # the function and both resume functions
    assert len(recompiles) == counts["recompiles"]
    for r in recompiles:
        assert r["reason"].strip()
    assert any("size mismatch" in r["reason"] for r in recompiles)


@pytest.fixture(scope="module")
def two_ranks(cli, tmp_path_factory):
    """make_trace_log.py at its smallest: 2 ranks on gloo, one repeat, one
    sweep length; --diverge gives rank 1 one more length, hence a recompile."""
    tmp = tmp_path_factory.mktemp("two_ranks")
    trace_dir = tmp / "trace"
    cmd = [sys.executable, str(MAKER), "--out", str(trace_dir), "--ranks", "2"]
    cmd += ["--repeats", "1", "--shapes", "1", "--diverge", "--backend", "aot_eager"]
    cmd += ["--width", "8", "--layers", "1", "--quiet"]
    # torchrun keeps its ranks' logs in a torchelastic_* folder under TMPDIR.
    (tmp / "tmp").mkdir()
    env = dict(os.environ, OMP_NUM_THREADS="1", TMPDIR=str(tmp / "tmp"))
    env.pop("TORCH_TRACE", None)
    made = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env)
    assert made.returncode == 0, made.stderr[-4000:]
    out = tmp / "report.json"
    proc = import_trace(cli, trace_dir, out)
    assert proc.returncode == 0, proc.stderr
    return validate_report(json.loads(out.read_text()))


def test_two_ranks_are_two_runs_in_rank_order(two_ranks):
    runs = two_ranks["runs"]
    assert len(runs) == 2
    assert [r["status"] for r in runs] == ["imported", "imported"]
    for run in runs:
        if not isinstance(run.get("trace"), dict) or "rank" not in run["trace"]:
            pytest.skip("the report JSON has no runs[].trace.rank yet (the importer writes it)")
    assert [r["trace"]["rank"] for r in runs] == [0, 1]


def test_only_the_diverging_rank_recompiles(two_ranks):
    rank0, rank1 = two_ranks["runs"]  # rank order (core/trace/trace_import.h)
    assert rank0["recompiles"] == []
    assert len(rank1["recompiles"]) >= 1
    assert any("size mismatch" in r["reason"] for r in rank1["recompiles"])
    # Both ranks broke the graph the same way (BreakNet: print, .item(), and
    # numpy's default_rng(0).random(), two breaks).
    assert len(rank0["graph_breaks"]) == len(rank1["graph_breaks"]) == 4


def rank_rule_exists() -> bool:
    return any("rank" in p.read_text() for p in (ROOT / "core" / "advice").glob("*_rule.cpp"))


def test_rank_divergence_is_a_finding(two_ranks):
    found = [f for f in two_ranks["advice"]["findings"] if "rank" in f["rule"]]
    if not found and not rank_rule_exists():
        pytest.skip("no rank divergence rule in core/advice yet")
    assert found, [f["rule"] for f in two_ranks["advice"]["findings"]]


def error_lines(proc):
    return [line for line in proc.stderr.splitlines() if line.startswith("error:")]


def test_empty_directory_is_an_error_naming_it(cli, tmp_path):
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = import_trace(cli, empty, tmp_path / "report.json")
    assert proc.returncode != 0
    errors = error_lines(proc)
    assert len(errors) == 1 and str(empty) in errors[0], proc.stderr
    assert not (tmp_path / "report.json").exists()


def test_a_file_that_is_no_trace_is_an_error_naming_it(cli, tmp_path):
    not_trace = tmp_path / "notes.log"
    not_trace.write_text("this is not a torch trace\nsecond line\n")
    proc = import_trace(cli, not_trace, tmp_path / "report.json")
    assert proc.returncode != 0
    errors = error_lines(proc)
    assert len(errors) == 1 and str(not_trace) in errors[0], proc.stderr
    assert not (tmp_path / "report.json").exists()


@pytest.mark.parametrize("model", ["print_break.py", "variable_length.py"])
def test_a_run_and_the_import_of_its_own_trace_agree(run_cli, cli, tmp_path, model):
    """The probe's live capture and torch's own trace of the same run describe
    the same graphs, breaks and recompiles."""
    traces = tmp_path / "traces"
    live = run_cli(
        "run",
        GALLERY / model,
        "--settings",
        "default/aot_eager",
        "--device",
        "cpu",
        "--warmup",
        "1",
        "--iters",
        "3",
        "--torch-trace",
        traces,
    )
    assert live.returncode == 0, live.stderr
    (run,) = live.report["runs"]
    proc = import_trace(cli, traces, tmp_path / "imported.json")
    assert proc.returncode == 0, proc.stderr
    (imported,) = validate_report(json.loads((tmp_path / "imported.json").read_text()))["runs"]
    assert imported["status"] == "imported"

    def graphs(r):
        return [(g["compile_id"], g["function"], len(g["nodes"])) for g in r["graphs"]]

    # Whole stacks: torch's traceback in the log starts at the program's entry
    # (the probe's harness) and passes through nn.Module's call machinery, and
    # the import starts it at the compiled frame as the live probe does.
    def breaks(r):
        return [
            (
                b["gb_type"],
                [(f["file"], f["line"], f["function"]) for f in b["frames"]],
                b["user_frame"],
            )
            for b in r["graph_breaks"]
        ]

    def recompiles(r):
        return [(x["function"], x["reason"]) for x in r["recompiles"]]

    assert graphs(imported) == graphs(run)
    assert breaks(imported) == breaks(run)
    assert recompiles(imported) == recompiles(run)
    assert run["graphs"], "the model should compile at least one graph"
    if model == "print_break.py":
        assert breaks(run), "the print must break the graph"
    else:
        assert recompiles(run), "the input sweep must recompile"
