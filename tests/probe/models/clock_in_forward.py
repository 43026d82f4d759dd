"""Test fixture: a forward that times its own layer with time.perf_counter().
Dynamo breaks the graph at each clock read, and the code after it compiles
the reading in as a constant: every call, with a new time, recompiles."""

import time

import torch
from torch import nn


class TimedLayer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16)
        self.seconds_in_linear = 0.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        started = time.perf_counter()
        y = self.linear(x)
        self.seconds_in_linear += time.perf_counter() - started
        return y.relu()


def get_model() -> nn.Module:
    return TimedLayer().eval()


def get_inputs():
    return (torch.randn(4, 16),)
