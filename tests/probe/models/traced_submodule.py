"""Test fixture: a block exported with torch.jit.trace inside the model that
is then given to torch.compile. Dynamo does not trace into TorchScript: the
traced block breaks the graph."""

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.linear(x)) * x


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.before = nn.Linear(16, 16)
        self.gate = torch.jit.trace(Gate(), torch.randn(4, 16))
        self.after = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.after(self.gate(self.before(x).relu()))


def get_model() -> nn.Module:
    return Model().eval()


def get_inputs():
    return (torch.randn(4, 16),)
