"""Test fixture: input noise drawn from the module's own torch.Generator, as
code that wants reproducible noise does. Dynamo cannot put the generator in
the graph: the draw breaks it (torch 2.15)."""

import torch
from torch import nn


class NoisyInput(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16)
        self.gen = torch.Generator().manual_seed(0)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        noise = torch.randn(x.shape, generator=self.gen) * 0.01
        return self.linear(x + noise).relu()


def get_model() -> nn.Module:
    return NoisyInput().eval()


def get_inputs():
    return (torch.randn(4, 16),)
