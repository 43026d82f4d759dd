"""A model get_model() left in training mode is measured in eval mode, and
the stream says so."""

from conftest import assert_well_formed, fixture_model, gallery, run_probe

from compilescope_probe.loader import mode_dependent_kinds

ARGS = ("--backend", "eager", "--warmup", "1", "--iters", "2", "--profile-calls", "0")


def test_a_model_left_in_training_mode_is_told_and_measured_in_eval():
    run = run_probe(fixture_model("training_mode"), *ARGS)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    told = [e for e in run.of("log") if e.get("code") == "training_mode"]
    assert len(told) == 1, run.describe()
    assert told[0]["level"] == "warning"
    assert told[0]["detail"] == "BatchNorm1d, Dropout"
    assert "model.eval()" in told[0]["message"]
    # measured in eval mode: dropout off, so eager repeats itself
    assert run.one("outputs_check")["status"] == "match", run.one("outputs_check")


def test_a_model_in_eval_mode_or_without_such_modules_is_not_told():
    run = run_probe(gallery("mlp"), *ARGS)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert not [e for e in run.of("log") if e.get("code") == "training_mode"]


def test_kinds_are_the_modules_in_training_mode():
    import torch
    from torch import nn

    model = nn.Sequential(nn.Conv2d(1, 1, 1), nn.InstanceNorm2d(1, affine=True), nn.Dropout2d())
    assert mode_dependent_kinds(model) == ["InstanceNorm2d", "Dropout2d"]
    model[2].eval()
    assert mode_dependent_kinds(model) == ["InstanceNorm2d"]
    assert mode_dependent_kinds(model.eval()) == []
    assert mode_dependent_kinds(torch.sin) == []
    assert mode_dependent_kinds(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.0))) == []
