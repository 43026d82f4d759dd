"""Test fixture: forward counts its calls in an int attribute, which torch
compiles in as a constant: every call recompiles until the recompile limit."""

import torch
from torch import nn


class Counting(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        return self.fc(x) * (1.0 + self.calls * 1e-3)


def get_model() -> nn.Module:
    return Counting()


def get_inputs():
    return (torch.randn(2, 8),)
