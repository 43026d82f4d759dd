"""The model's module hooks in the model event (probe/compilescope_probe/module_hooks.py)."""

import functools

import torch
from conftest import assert_well_formed, fixture_model, run_probe

from compilescope_probe.module_hooks import MAX_LISTED, registered


def show(module, args, output):
    return None


class Recorder:
    def before(self, module, args):
        return None


def test_every_kind_of_hook_is_named_by_module_function_and_line():
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU())
    model[0].register_forward_hook(show)
    model[1].register_forward_pre_hook(functools.partial(Recorder().before))
    handle = torch.nn.modules.module.register_module_forward_hook(show)
    try:
        hooks = registered(torch, model)
    finally:
        handle.remove()
    assert {
        "module": "0",
        "kind": "forward",
        "function": "show",
        "file": __file__,
        "line": show.__code__.co_firstlineno,
    } in hooks
    assert any(
        h["module"] == "1" and h["kind"] == "forward_pre" and h["function"] == "Recorder.before"
        for h in hooks
    )
    assert any(h["module"] == "" and h["kind"] == "global_forward" for h in hooks)
    # A callable object without Python code is named by its type.
    model[0].register_forward_hook(torch.nn.Identity())
    assert {"module": "0", "kind": "forward", "function": "Identity", "file": "", "line": 0} in (
        registered(torch, model)
    )


def test_a_model_without_hooks_lists_none_and_many_are_capped():
    model = torch.nn.Sequential(*[torch.nn.ReLU() for _ in range(MAX_LISTED + 5)])
    assert registered(torch, model) == []
    for layer in model:
        layer.register_forward_hook(show)
    assert len(registered(torch, model)) == MAX_LISTED
    assert registered(torch, show) == []  # a function as the model has no modules


def test_the_model_event_carries_the_hooks():
    run = run_probe(
        fixture_model("printing_hook"), "--mode", "eager", "--warmup", "1", "--iters", "1"
    )
    assert_well_formed(run)
    (hook,) = run.one("model")["hooks"]
    assert hook["module"] == "0" and hook["function"] == "show_activation"
    assert hook["file"].endswith("printing_hook.py") and hook["line"] == 9
