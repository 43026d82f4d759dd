"""Test fixture: forward raises on every call (line 14)."""

import torch
from torch import nn


class Broken(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        raise ValueError("this model is broken on purpose")
        return y


def get_model():
    return Broken()


def get_inputs():
    return (torch.randn(2, 4),)
