"""Model specs other than a gallery .py file: .pt2 archives, torchvision, library-code breaks."""

from __future__ import annotations

import os
import runpy

import pytest
from conftest import (
    PROBE_PATH,
    assert_well_formed,
    first_call_graphs,
    fixture_model,
    gallery,
    run_probe,
)


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
    assert model["spec"] == str(path) and model["inputs"] == [
        {"shape": [32, 512], "dtype": "float32", "name": "x"}
    ]
    assert model["parameters"] == sum(p.numel() for p in ns["get_model"]().parameters())
    graphs, breaks = first_call_graphs(run)
    assert len(graphs) == 1 and not breaks
    assert len(run.calls()) == 3


def test_torchvision_missing_says_how_to_install(tmp_path):
    # The project's venv has torchvision; a package of that name that fails to
    # import stands in for an environment without it.
    shadow = tmp_path / "torchvision"
    shadow.mkdir()
    (shadow / "__init__.py").write_text(
        "raise ModuleNotFoundError(\"No module named 'torchvision'\", name='torchvision')\n"
    )
    run = run_probe(
        "torchvision:resnet18",
        "--backend",
        "eager",
        "--warmup",
        "1",
        "--iters",
        "1",
        env={"PYTHONPATH": f"{tmp_path}{os.pathsep}{PROBE_PATH}"},
    )
    assert_well_formed(run)
    err = run.one("error")
    assert err["kind"] == "model_import_error" and "pip install torchvision" in err["message"]


def test_torchvision_model_runs_with_random_weights_at_its_crop_size():
    import torchvision  # the project's install puts it in the venv

    run = run_probe("torchvision:resnet18", "--mode", "eager", "--warmup", "1", "--iters", "2")
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    model = run.one("model")
    assert model["spec"] == "torchvision:resnet18" and model["name"] == "resnet18"
    assert model["inputs"] == [{"shape": [1, 3, 224, 224], "dtype": "float32", "name": "x"}]
    expected = sum(
        p.numel() for p in torchvision.models.get_model("resnet18", weights=None).parameters()
    )
    assert model["parameters"] == expected
    assert len(run.calls()) == 3


def test_unknown_torchvision_model_names_close_ones():
    run = run_probe("torchvision:resnet1000", "--mode", "eager", "--warmup", "1", "--iters", "1")
    assert_well_formed(run)
    err = run.one("error")
    assert err["kind"] == "model_not_found", run.describe()
    assert "resnet1000" in err["message"] and "resnet18" in err["message"]


def test_break_inside_library_code_points_at_the_user_line():
    path = fixture_model("library_break")
    run = run_probe(path, "--backend", "eager", "--warmup", "1", "--iters", "1")
    _, breaks = first_call_graphs(run)
    assert len(breaks) == 1, run.describe()
    b = breaks[0]
    frames = b["frames"]
    uf = frames[b["user_frame"]]
    assert (
        os.path.realpath(uf["file"]) == str(path)
        and uf["line"] == 17
        and uf["code"].startswith("note = json.dumps")
    )
    # the frames inside json (and torch) are there, marked as library code, innermost last
    assert len(frames) > b["user_frame"] + 1
    assert all(not f["user"] for f in frames[b["user_frame"] + 1 :])
    assert any("json" in f["file"] for f in frames if not f["user"])


@pytest.mark.parametrize(
    "name, shapes",
    [
        # a pretrained backbone by default: the loader passes weights_backbone=None
        ("ssdlite320_mobilenet_v3_large", [[1, 3, 224, 224]]),
        ("lraspp_mobilenet_v3_large", [[1, 3, 224, 224]]),
        ("r3d_18", [[1, 3, 16, 112, 112]]),  # a clip, at its weights' crop size
        ("raft_small", [[1, 3, 224, 224], [1, 3, 224, 224]]),  # two frames
    ],
)
def test_torchvision_families_get_their_inputs_and_download_nothing(monkeypatch, name, shapes):
    import torch
    import torchvision  # noqa: F401  # the project's install puts it in the venv

    from compilescope_probe import loader

    def no_download(url, *args, **kwargs):
        raise AssertionError(f"torchvision:{name} tried to download {url}")

    monkeypatch.setattr(torch.hub, "load_state_dict_from_url", no_download)
    loaded = loader.load_torchvision(name)
    assert [list(t.shape) for t in loaded.inputs] == shapes
    with torch.no_grad():
        loaded.model(*loaded.inputs)  # the inputs fit the model


RANDOM_MODEL = """
import random

import numpy as np
import torch


def get_model():
    return torch.nn.Linear(4, 4)


def get_inputs():
    return torch.randn(2, 4) * random.random() * float(np.random.rand())
"""


def test_every_load_builds_the_same_random_weights_and_inputs(tmp_path):
    # Each setting of a comparison loads in a probe of its own: a detector's
    # NMS does more or less work with other random weights, so they must match.
    import torch

    from compilescope_probe import loader
    from compilescope_probe.frames import FrameClassifier

    path = tmp_path / "random_model.py"
    path.write_text(RANDOM_MODEL)
    classifier = FrameClassifier(str(path))
    loads = []
    for _ in range(2):
        torch.manual_seed(len(loads) + 7)  # what ran before the load must not matter
        loads.append(loader.load(str(path), classifier))
    a, b = loads
    assert torch.equal(a.inputs[0], b.inputs[0])
    assert torch.equal(a.model.weight, b.model.weight)
    vision = [loader.load("torchvision:squeezenet1_0", classifier) for _ in range(2)]
    assert torch.equal(vision[0].inputs[0], vision[1].inputs[0])
    assert all(
        torch.equal(p, q)
        for p, q in zip(vision[0].model.parameters(), vision[1].model.parameters(), strict=True)
    )
