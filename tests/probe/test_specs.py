"""Model specs other than a gallery .py file: .pt2 archives, torchvision, library-code breaks."""

from __future__ import annotations

import os
import runpy

import pytest

from conftest import assert_well_formed, first_call_graphs, fixture_model, gallery, run_probe


def test_exported_program_archive(tmp_path):
    import torch

    ns = runpy.run_path(str(gallery("mlp")))
    ep = torch.export.export(ns["get_model"]().eval(), tuple(ns["get_inputs"]()))
    path = tmp_path / "mlp.pt2"
    torch.export.save(ep, str(path))
    run = run_probe(path, "--backend", "eager", "--warmup", "1", "--iters", "2")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    model = run.one("model")
    assert model["spec"] == str(path) and model["inputs"] == [{"shape": [32, 512], "dtype": "float32"}]
    assert model["parameters"] == sum(p.numel() for p in ns["get_model"]().parameters())
    graphs, breaks = first_call_graphs(run)
    assert len(graphs) == 1 and not breaks
    assert len(run.of("iteration")) == 3


def test_torchvision_missing_says_how_to_install():
    try:
        import torchvision  # noqa: F401

        pytest.skip("torchvision is installed here; the missing-package path cannot be shown")
    except ImportError:
        pass
    run = run_probe("torchvision:resnet18", "--backend", "eager", "--warmup", "1", "--iters", "1")
    assert_well_formed(run)
    err = run.one("error")
    assert err["kind"] == "model_import_error" and "pip install torchvision" in err["message"]


def test_break_inside_library_code_points_at_the_user_line():
    path = fixture_model("library_break")
    run = run_probe(path, "--backend", "eager", "--warmup", "1", "--iters", "1")
    _, breaks = first_call_graphs(run)
    assert len(breaks) == 1, run.describe()
    b = breaks[0]
    frames = b["frames"]
    uf = frames[b["user_frame"]]
    assert os.path.realpath(uf["file"]) == str(path) and uf["line"] == 17 and uf["code"].startswith("note = json.dumps")
    # the frames inside json (and torch) are there, marked as library code, innermost last
    assert len(frames) > b["user_frame"] + 1
    assert all(not f["user"] for f in frames[b["user_frame"] + 1:])
    assert any("json" in f["file"] for f in frames if not f["user"])
