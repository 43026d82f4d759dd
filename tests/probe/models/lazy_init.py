"""Test fixture: a flag set on the first call makes the second call recompile
(Dynamo guards on the flag's value) — compile work during warmup, not only in
the first call."""

import torch
from torch import nn


class LazyInit(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.ready = False

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.ready:
            self.ready = True
            return self.fc(x) * 0.5
        return self.fc(x)


def get_model():
    return LazyInit()


def get_inputs():
    return (torch.randn(2, 8),)
