"""Test fixture: a forward hook that logs each call's activation into a
module-level list. Dynamo traces the hook with the module and guards on the
list's length, so every call fails the guard and compiles again, until the
recompile limit makes torch run the hook's frame eagerly."""

import torch
from torch import nn

activations: list[torch.Tensor] = []


def log_activation(module: nn.Module, args: tuple, output: torch.Tensor) -> None:
    activations.append(output.detach().abs().mean())


def get_model() -> nn.Module:
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
    model[1].register_forward_hook(log_activation)
    return model.eval()


def get_inputs():
    return (torch.randn(4, 16),)
