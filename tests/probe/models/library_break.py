"""Test fixture: the break happens deep inside the standard library (json),
called from forward at line 17."""

import json

import torch
from torch import nn


class Logs(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.fc(x)
        note = json.dumps({"rows": 2})
        return y * len(note)


def get_model():
    return Logs()


def get_inputs():
    return (torch.randn(2, 4),)
