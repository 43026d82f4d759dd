"""Control flow that depends on a tensor's value: `if x.sum() > 0`.

Lesson: which branch runs depends on data Dynamo does not have while
tracing, so it breaks the graph at the `if` and runs the test in Python.
Use torch.where (both sides computed) or torch.cond to keep one graph.
"""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(64, 64)
        self.pos = nn.Linear(64, 10)
        self.neg = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.proj(x))
        if h.sum() > 0:  # the graph break: the branch depends on the values
            return self.pos(h)
        return self.neg(h)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return Gate()


def get_inputs():
    torch.manual_seed(1)
    return (torch.randn(16, 64),)
