"""A residual block with layer norm and GELU, written the way Dynamo likes it.

Lesson: the counter-example to the break gallery: only tensor operations,
shapes from the inputs, no Python side effects. One graph, no breaks, no
recompiles: everything after the first call is Inductor's fused kernels.
"""

import torch
from torch import nn


class ResidualMLP(nn.Module):
    def __init__(self, dim: int = 128, blocks: int = 2) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 2 * dim), nn.GELU(), nn.Linear(2 * dim, dim))
            for _ in range(blocks)
        )
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = x + block(x)
        return self.head(x)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return ResidualMLP()


def get_inputs():
    return (torch.randn(16, 128),)
