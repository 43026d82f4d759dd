"""Test fixture: a sweep over more distinct lengths than torch's recompile
limit (8), so dynamic=false hits the limit."""

import torch
from torch import nn


class Pool(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x).sum(dim=1)


def get_model():
    return Pool()


def get_inputs():
    return (torch.randn(2, 3, 8),)


def get_input_sweep():
    return [(torch.randn(2, n, 8),) for n in range(4, 16)]
