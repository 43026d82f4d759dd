"""Test fixture: a forward hook that prints each call's activation. The
print is in no forward, yet torch.compile traces the hook with its module
and breaks the graph there."""

import torch
from torch import nn


def show_activation(module: nn.Module, args: tuple, output: torch.Tensor) -> None:
    print("activation mean", output.mean())


def get_model() -> nn.Module:
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    model[0].register_forward_hook(show_activation)
    return model.eval()


def get_inputs():
    return (torch.randn(4, 16),)
