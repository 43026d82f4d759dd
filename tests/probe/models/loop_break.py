"""Test fixture: a break inside a for loop. forward's linear layer compiles,
then pick() runs nonzero per row: torch breaks forward at the call and, as it
cannot resume inside a loop, skips pick's frame and runs it eagerly ("graph
break in loop", chained after the nonzero break that caused it)."""

import torch
from torch import nn


class LoopBreak(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def pick(self, h: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(h.shape[0]):
            keep = torch.nonzero(h[i] > 0).squeeze(1)
            rows.append(h[i][keep].sum())
        return torch.stack(rows)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc(x))
        return self.pick(h)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return LoopBreak()


def get_inputs():
    torch.manual_seed(1)
    return (torch.randn(4, 16),)
