"""A model built as an nn.Sequential, with one block that calls .item().

Lesson: a graph break costs more than the break itself when it sits inside
torch's own containers. nn.Sequential runs its children in a loop in
torch's code; Dynamo cannot resume in the middle of that loop, so it runs
the whole forward eagerly, and torch's own layers (every Linear and GELU
here) are never compiled: only the breaking block's own code is. Keep the
value a tensor (`x / (x.abs().max() + 1e-6)`) and the whole model compiles.
"""

import torch
from torch import nn


class Normalise(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        peak = x.abs().max().item()  # the graph break: a Python float
        return x / (peak + 1e-6)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    layers: list[nn.Module] = []
    for i in range(6):
        layers += [nn.Linear(256, 256), nn.GELU()]
        if i == 2:
            layers.append(Normalise())
    return nn.Sequential(*layers, nn.Linear(256, 10))


def get_inputs():
    return (torch.randn(64, 256),)
