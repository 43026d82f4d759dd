"""Test fixture: three blocks of one class, each breaking its graph on
.item(), called in a loop. Dynamo compiles Block.forward once, for blocks.0,
and runs that graph for blocks.1 and blocks.2 too: the kernel profile must
say which block ran each call."""

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(64, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(x))
        peak = h.abs().max().item()  # the break, in every block
        return h / (peak + 1e-6)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.blocks = nn.ModuleList([Block() for _ in range(3)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return x


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return Model()


def get_inputs():
    torch.manual_seed(1)
    return (torch.randn(32, 64),)
