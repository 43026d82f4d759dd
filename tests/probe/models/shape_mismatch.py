"""Test fixture: forward fails inside a torch op (wrong input width, line 17)."""

import torch
from torch import nn


class Mismatch(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x)


def get_model():
    return Mismatch()


def get_inputs():
    return (torch.randn(2, 5),)
