"""Test fixture: a learning-rate-style warmup read from a module global that
forward counts up. torch compiles the global in as a constant, so every call
recompiles until the limit."""

import torch
from torch import nn

STEP = 0


class WarmedUp(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        global STEP
        STEP += 1
        warm = min(1.0, STEP / 100)
        return self.linear(x).relu() * warm


def get_model() -> nn.Module:
    return WarmedUp().eval()


def get_inputs():
    return (torch.randn(4, 16),)
