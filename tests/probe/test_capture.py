"""Graphs and breaks captured from the real compile agree with torch._dynamo.explain.

For each gallery model the probe runs (backend eager: graph capture does not
depend on the backend, and it is the fastest), and explain runs on the same
model and inputs in this process; graph count, break count and break
locations must agree."""

from __future__ import annotations

import os
import runpy

import pytest
from conftest import (
    GALLERY,
    assert_well_formed,
    first_call_graphs,
    fixture_model,
    gallery,
    innermost_user_location,
    run_probe,
    run_probes,
)

GALLERY_MODELS = sorted(p.stem for p in GALLERY.glob("*.py"))
# The lesson each model teaches: whether Dynamo must break its graph.
BREAKS = {
    "print_break",
    "item_break",
    "data_dependent_branch",
    "numpy_break",
    "untraceable_call",
    "sequential_break",
}


def test_gallery_is_complete():
    expected = BREAKS | {"mlp", "convnet", "variable_length", "clean"}
    assert expected <= set(GALLERY_MODELS)
    for name in GALLERY_MODELS:
        ns = runpy.run_path(str(gallery(name)))
        assert callable(ns.get("get_model")) and callable(ns.get("get_inputs")), name
        assert ns.get("__doc__") and "Lesson" in ns["__doc__"], (
            f"{name} needs a docstring saying its lesson"
        )


def _explain(path):
    import torch
    import torch._dynamo

    from compilescope_probe.frames import FrameClassifier

    ns = runpy.run_path(str(path))
    model = ns["get_model"]().eval()
    inputs = ns["get_inputs"]()
    inputs = (inputs,) if isinstance(inputs, torch.Tensor) else tuple(inputs)
    torch._dynamo.reset()
    with torch.no_grad():
        out = torch._dynamo.explain(model)(*inputs)
    torch._dynamo.reset()
    classifier = FrameClassifier(str(path))
    classifier.add_library_root(os.path.dirname(torch.__file__))
    locations = []
    for reason in out.break_reasons:
        user = [fs for fs in reason.user_stack if classifier.is_user(fs.filename)]
        fs = user[-1] if user else reason.user_stack[-1]
        locations.append((os.path.realpath(fs.filename), fs.lineno))
    return out, locations


_RUNS: dict = {}


def gallery_run(name):
    if not _RUNS:  # every gallery model at once, in parallel
        args = ("--backend", "eager", "--warmup", "1", "--iters", "1")
        runs = run_probes([(gallery(n), *args) for n in GALLERY_MODELS])
        _RUNS.update(zip(GALLERY_MODELS, runs))
    return _RUNS[name]


@pytest.fixture(params=GALLERY_MODELS)
def probed(request):
    return request.param, gallery_run(request.param)


def test_counts_and_locations_match_explain(probed):
    name, run = probed
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    graphs, breaks = first_call_graphs(run)
    explained, locations = _explain(gallery(name))
    assert len(graphs) == explained.graph_count, name
    assert len(breaks) == explained.graph_break_count == len(explained.break_reasons), name
    assert [innermost_user_location(b) for b in breaks] == locations, name
    if name in BREAKS:
        assert breaks, f"{name} is meant to break the graph"
    else:
        assert not breaks, f"{name} is meant to compile into one graph"


def test_break_events_are_complete(probed):
    name, run = probed
    graphs, breaks = first_call_graphs(run)
    source = gallery(name).read_text().splitlines()
    for b in breaks:
        assert b["reason"] and b["gb_type"], b
        uf = b["frames"][b["user_frame"]]
        assert uf["user"] is True and os.path.realpath(uf["file"]) == str(gallery(name))
        assert uf["code"] == source[uf["line"] - 1].strip()
        assert uf["function"] == "forward"
        # the graphs on either side, in execution order
        assert 0 <= b["graph_before"] < b["graph_after"] < len(graphs)
        assert b["graph_after"] == b["graph_before"] + 1
    assert [b["index"] for b in breaks] == list(range(len(breaks)))


def test_graph_nodes(probed):
    name, run = probed
    graphs, _ = first_call_graphs(run)
    assert [g["index"] for g in graphs] == list(range(len(graphs)))
    for g in graphs:
        names = [n["name"] for n in g["nodes"]]
        assert len(set(names)) == len(names)
        assert g["nodes"][-1]["op"] == "output"
        assert g["compile_id"] and os.path.realpath(g["file"]) == str(gallery(name)), g["file"]
        defined = set()
        for n in g["nodes"]:
            assert n["op"] in (
                "placeholder",
                "call_function",
                "call_method",
                "call_module",
                "get_attr",
                "output",
            )
            assert set(n["inputs"]) <= defined, f"{n['name']} uses a node defined after it"
            defined.add(n["name"])
        computed = [
            n for n in g["nodes"] if n["op"] in ("call_function", "call_method", "call_module")
        ]
        assert computed, "a captured graph computes something"
        for n in computed:
            # every op traced from the user's forward points at a line of it
            assert n["file"] and os.path.realpath(n["file"]) == str(gallery(name)), n
            assert n["line"] > 0
        tensors = [n for n in g["nodes"] if isinstance(n["shape"], str)]
        assert tensors and all(n["shape"].startswith("[") and n["dtype"] for n in tensors)


def test_module_paths_and_shapes_in_the_mlp():
    (graph,), _ = first_call_graphs(gallery_run("mlp"))
    by_module = {}
    for n in graph["nodes"]:
        if n["op"] == "call_function" and n["module"]:
            by_module.setdefault(n["module"], []).append(n)
    assert set(by_module) == {"fc1", "fc2", "head"}
    assert (
        by_module["fc1"][0]["shape"] == "[32, 1024]" and by_module["head"][0]["shape"] == "[32, 10]"
    )
    assert all(n["dtype"] == "float32" for ns in by_module.values() for n in ns)


def test_break_with_no_graph_before_it():
    """A print as the first statement leaves no graph before the break:
    explain lists no such break, the probe reports it with graph_before -1."""
    path = fixture_model("chatty")
    run = run_probe(path, "--backend", "eager", "--warmup", "1", "--iters", "1")
    graphs, breaks = first_call_graphs(run)
    explained, _ = _explain(path)
    assert len(graphs) == explained.graph_count
    assert len(breaks) > len(explained.break_reasons)
    lines = path.read_text().splitlines()
    for b in breaks:
        assert b["graph_before"] == -1 and b["graph_after"] == 0
        loc = innermost_user_location(b)
        assert loc[0] == str(path) and "CHATTY" in lines[loc[1] - 1]


def test_a_restarted_analysis_leaves_one_graph():
    # GPT-2 under dynamic=True showed "2 graphs, 0 breaks" for one compile:
    # the graph of the abandoned attempt was reported next to the real one.
    run = run_probe(
        fixture_model("restarted_compile"),
        "--mode",
        "default",
        "--dynamic",
        "true",
        "--warmup",
        "1",
        "--iters",
        "2",
        "--profile-calls",
        "0",
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    graphs = run.of("graph")
    assert [(g["index"], g["compile_id"]) for g in graphs] == [(0, "0/0")], run.describe()
    assert not run.of("graph_break")


def test_a_backend_failure_is_one_break_at_its_op():
    # transformers' EnCodec under torch 2.15: the backend failed on a reflect
    # pad by tensor amounts, and the probe reported 4 breaks for it: torch's
    # "WON'T CONVERT" log twice (in torch's pad), the break at the frame's
    # return with the reason "step_unsupported", and the break itself.
    path = fixture_model("padded_by_tensors")
    run = run_probe(path, "--backend", "aot_eager", "--warmup", "1", "--iters", "1")
    assert_well_formed(run)
    breaks = run.of("graph_break")
    assert not [b for b in breaks if "WON'T CONVERT" in b["reason"]], run.describe()
    failed = [b for b in breaks if b["gb_type"] == "Backend compiler exception"]
    assert len(failed) == 1, run.describe()
    assert "failed with aten._local_scalar_dense" in failed[0]["reason"]
    loc = innermost_user_location(failed[0])
    lines = path.read_text().splitlines()
    assert loc[0] == str(path) and '"reflect"' in lines[loc[1] - 1], loc
