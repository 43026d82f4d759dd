"""A .item() whose Python number feeds further arithmetic.

Lesson: `.item()` turns a tensor into a Python float. Dynamo cannot keep a
value it does not know at trace time inside the graph (unless
torch._dynamo.config.capture_scalar_outputs is on), so the graph breaks
there. Keep the value a tensor: `x / x.abs().max()` instead.
"""

import torch
from torch import nn


class ItemScaler(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(64, 64)
        self.out = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        peak = h.abs().max().item()  # the graph break: a Python float
        scale = 1.0 / (peak + 1e-6)
        return self.out(torch.relu(h * scale))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return ItemScaler()


def get_inputs():
    return (torch.randn(16, 64),)
