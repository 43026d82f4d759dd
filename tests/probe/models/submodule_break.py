"""Test fixture: a graph break inside a submodule (blocks.1's .item()), under
an nn.Sequential: the op that breaks runs eagerly in blocks.1, which the
compiled setting's eager time by module must name."""

import torch
from torch import nn


class Scaled(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.fc(x)
        # The break: a Python float; sorting first gives the eager op some time.
        peak = h.flatten().sort().values[-1].item()
        return h / (abs(peak) + 1e-6)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.Sequential(nn.Linear(64, 64), Scaled(), nn.ReLU())
        self.head = nn.Linear(64, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.blocks(x))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return Model()


def get_inputs():
    torch.manual_seed(1)
    return (torch.randn(256, 64),)
