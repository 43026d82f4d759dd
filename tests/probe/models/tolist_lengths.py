"""Test fixture: per-sequence mean pooling that reads the lengths with
.tolist() and slices each row in a Python loop. The .tolist() breaks the
graph (torch 2.15, "Data dependent operator")."""

import torch
from torch import nn


class Pool(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        lengths = mask.sum(1).tolist()
        return torch.stack([h[i, :n].mean(0) for i, n in enumerate(lengths)])


def get_model() -> nn.Module:
    return Pool().eval()


def get_inputs():
    mask = torch.zeros(4, 10, dtype=torch.long)
    for i, n in enumerate([10, 7, 5, 9]):
        mask[i, :n] = 1
    return (torch.randn(4, 10, 16), mask)
