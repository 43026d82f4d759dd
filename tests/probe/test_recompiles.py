"""Recompiles caused by the input sweep, under each dynamic= setting, checked
against a count of compiles made by torch itself in this process."""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from conftest import (
    ProbeRun,
    assert_well_formed,
    fixture_model,
    gallery,
    run_probe,
    run_probes,
)


def _torch_compile_count(path, dynamic):
    """Frames torch compiles for get_inputs() then each sweep input, counted
    by a backend that only counts (no probe involved)."""
    import torch
    import torch._dynamo

    ns = runpy.run_path(str(path))
    model = ns["get_model"]().eval()
    calls = [ns["get_inputs"]()] + list(ns["get_input_sweep"]())
    compiles = 0

    def counting(gm, example_inputs):
        nonlocal compiles
        compiles += 1
        return gm.forward

    torch._dynamo.reset()
    opt = torch._dynamo.optimize(counting, dynamic=dynamic)(model)
    with torch.no_grad():
        for inputs in calls:
            opt(*inputs)
    torch._dynamo.reset()
    return compiles, calls


_RUNS: dict = {}


def _sweep_run(path, dynamic):
    if not _RUNS:  # all four sweeps at once, in parallel
        keys = [(gallery("variable_length"), d) for d in ("false", "auto", "true")]
        keys.append((fixture_model("many_lengths"), "false"))
        jobs = [
            (p, "--backend", "eager", "--dynamic", d, "--sweep", "--warmup", "1", "--iters", "1")
            for p, d in keys
        ]
        _RUNS.update(zip(keys, run_probes(jobs)))
    run = _RUNS.get((path, dynamic)) or run_probe(
        path, "--backend", "eager", "--dynamic", dynamic, "--sweep", "--warmup", "1", "--iters", "1"
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    return run


@pytest.mark.parametrize("dynamic", ["false", "auto", "true"])
def test_variable_length_recompiles(dynamic):
    path = gallery("variable_length")
    run = _sweep_run(path, dynamic)
    compiles, calls = _torch_compile_count(
        path, {"false": False, "auto": None, "true": True}[dynamic]
    )
    in_sweep = [e for e in run.phase_span("sweep") if e["type"] == "recompile"]
    assert not [e for e in run.events if e["type"] == "recompile" and e not in in_sweep]
    assert len(in_sweep) == compiles - 1, [e["reason"] for e in in_sweep]
    # what each setting is meant to show (see the model's docstring)
    lengths = [inputs[0].shape[1] for inputs in calls]
    new_lengths = len(set(lengths[1:]) - {lengths[0]})
    expected = {"false": new_lengths, "auto": 1, "true": 0}[dynamic]
    assert len(in_sweep) == expected
    sweep_logs = [
        e
        for e in run.phase_span("sweep")
        if e["type"] == "log" and e["message"].startswith("sweep ")
    ]
    assert len(sweep_logs) == len(calls) - 1
    # Each names its item's shapes for the advice (every size the calls passed).
    assert [e.get("code") for e in sweep_logs] == ["sweep_inputs"] * len(sweep_logs)
    assert [e["detail"] for e in sweep_logs] == [
        ", ".join("[" + ", ".join(map(str, t.shape)) + "]" for t in inputs) for inputs in calls[1:]
    ]
    for i, rc in enumerate(in_sweep):
        assert rc["function"] == "forward" and rc["file"] == str(path)
        assert "tokens" in rc["reason"] and "size mismatch" in rc["reason"]
        assert rc["cache_size"] == i + 2  # the first compile, then one more entry each time
        assert rc["input_shapes"].startswith("[4, ")
    # each recompile came with its graph
    graphs = [e for e in run.phase_span("sweep") if e["type"] == "graph"]
    assert len(graphs) == len(in_sweep)
    if dynamic == "auto" and graphs:
        tokens = [
            n for n in graphs[0]["nodes"] if n["op"] == "placeholder" and "tokens" in n["name"]
        ]
        assert any(isinstance(n["shape"], str) and ", s" in n["shape"] for n in tokens), (
            "auto marks the length dynamic"
        )


def test_recompile_limit():
    import torch._dynamo

    limit = (
        getattr(torch._dynamo.config, "recompile_limit", None)
        or torch._dynamo.config.cache_size_limit
    )
    run = _sweep_run(fixture_model("many_lengths"), "false")
    recompiles = [e for e in run.phase_span("sweep") if e["type"] == "recompile"]
    hits = [e for e in run.phase_span("sweep") if e["type"] == "recompile_limit"]
    assert len(recompiles) == limit - 1
    # each recompile carries torch's real limit, not a placeholder
    assert all(rc["limit"] == limit for rc in recompiles)
    assert len(hits) == 1, run.describe()
    hit = hits[0]
    assert (
        hit["limit"] == limit and hit["function"] == "forward" and "size mismatch" in hit["reason"]
    )
    # after the limit the frame runs eagerly: no more graphs
    assert len([e for e in run.phase_span("sweep") if e["type"] == "graph"]) == limit - 1


def test_symbolic_sizes_under_dynamic_true():
    from conftest import first_call_graphs

    run = _sweep_run(gallery("variable_length"), "true")
    (graph,), _ = first_call_graphs(run)
    tokens = [
        n
        for n in graph["nodes"]
        if n["op"] == "placeholder" and isinstance(n["shape"], str) and "tokens" in n["name"]
    ]
    assert tokens, [n["name"] for n in graph["nodes"]]
    dims = tokens[0]["shape"].strip("[]").split(", ")
    assert len(dims) == 2 and all(d.startswith("s") for d in dims), tokens[0]["shape"]


def _static_sweep(name: str) -> tuple[Path, ProbeRun, list[dict]]:
    """The fixture run once over its sweep, static and uncompiled by Inductor."""
    path = fixture_model(name)
    run = run_probe(
        path, "--backend", "eager", "--dynamic", "false", "--sweep", "--warmup", "1", "--iters", "1"
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    return path, run, [e for e in run.events if e["type"] == "recompile"]


def test_library_wrapper_is_named_as_the_models_forward():
    # forward wrapped by a decorator in site-packages (like transformers'
    # can_return_tuple): torch compiles the wrapper and guards on its args[0].
    path, run, recompiles = _static_sweep("wrapped_forward")
    assert len(recompiles) == 2, run.describe()
    for rc in recompiles:
        assert rc["function"] == "TinyLM.forward" and rc["file"] == str(path)
        assert rc["library_frame"]["function"] == "wrapper"
        assert rc["library_frame"]["file"].endswith("fakelib/generic.py")
        assert "tensor 'input_ids' size mismatch at index 1" in rc["reason"], rc["reason"]
        assert "args[0]" in rc["raw_reason"] and "args[0]" not in " ".join(rc["reasons"])
    graphs = [e for e in run.events if e["type"] == "graph"]
    assert graphs and all(g["function"] == "TinyLM.forward" for g in graphs)
    assert all(g["library_frame"]["function"] == "wrapper" for g in graphs)


def test_a_library_wrapper_taking_self_in_its_args_names_the_forwards_inputs():
    # transformers' @deprecate_kwarg on BloomForCausalLM.forward: wrapped_func(*args,
    # **kwargs) guards on args[1], which is input_ids, not the forward's second
    # parameter (cache).
    _, run, recompiles = _static_sweep("wrapped_forward_all_args")
    assert len(recompiles) == 2, run.describe()
    for rc in recompiles:
        assert rc["function"] == "TinyLM.forward"
        assert rc["library_frame"]["function"] == "wrapped_func"
        assert "tensor 'input_ids' size mismatch at index 1" in rc["reason"], rc["reason"]
        assert "args[1]" in rc["raw_reason"], rc["raw_reason"]


def test_a_library_function_under_a_decorators_wrapper_is_named_by_itself():
    # fakelib's stand-in for transformers' @deprecate_kwarg, called from a
    # loop that breaks the graph: torch compiles the wrapper (wrapped_func,
    # args[0]) as a frame of its own; the report names prepare_inputs and
    # its input_ids, as the user reads them in the library's source.
    _, run, recompiles = _static_sweep("wrapped_library_call")
    assert len(recompiles) == 1, run.describe()
    rc = recompiles[0]
    assert rc["function"] == "prepare_inputs" and rc["file"].endswith("fakelib/deprecation.py")
    assert rc["wrapper_frame"]["function"] == "wrapped_func", rc
    assert "library_frame" not in rc, "not a wrapper around the model's forward"
    assert "tensor 'input_ids' size mismatch at index 1" in rc["reason"], rc["reason"]
    assert "args[0]" in rc["raw_reason"]
    graphs = [e for e in run.events if e["type"] == "graph"]
    assert graphs and all(g["function"] == "prepare_inputs" for g in graphs), graphs
    assert all(g["wrapper_frame"]["function"] == "wrapped_func" for g in graphs)


def test_a_submodule_compiled_alone_keeps_its_library_frames_name():
    # Mode as-written on a file that compiles only a submodule's forward,
    # wrapped by a library decorator: its recompile is on the one-token slice
    # the outer forward makes, not on the model's input, which never changed.
    path = fixture_model("wrapped_submodule_compiled")
    run = run_probe(path, "--mode", "as-written", "--warmup", "1", "--iters", "1", "--no-code")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    recompiles = [e for e in run.events if e["type"] == "recompile"]
    assert recompiles, run.describe()
    for rc in recompiles:
        assert rc["function"] == "wrapper" and rc["file"].endswith("fakelib/generic.py"), rc
        assert "library_frame" not in rc
        assert "tensor 'args[0]' size mismatch" in rc["reason"], rc["reason"]
        assert "prompt" not in rc["reason"]
