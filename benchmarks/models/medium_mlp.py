"""Benchmark-only: a residual MLP block, a few hundred microseconds per call on
one CPU core. x + W2 gelu(W1 layernorm(x)), 256 -> 1024 -> 256; batch 16."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, width: int = 256) -> None:
        super().__init__()
        self.norm = nn.LayerNorm(width)
        self.up = nn.Linear(width, 4 * width)
        self.down = nn.Linear(4 * width, width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return Block()


def get_inputs():
    return (torch.randn(16, 256),)
