"""Test fixture: forward runs out of memory (simulated with MemoryError on the third call)."""

import torch
from torch import nn


class Greedy(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.calls += 1
        if self.calls >= 3:
            raise MemoryError("simulated: cannot allocate 64 GiB")
        return self.fc(x)


def get_model():
    return Greedy()


def get_inputs():
    return (torch.randn(2, 4),)
