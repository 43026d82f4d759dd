"""Test fixture: forward writes a hidden mean to a file, as a newcomer logs
activations. Dynamo does not trace files: the line breaks the graph, and the
file object open() made is on the stack at the break, so the frame after it
guards that object, which the call then frees: a recompile on every call."""

import os

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encode = nn.Linear(8, 8)
        self.head = nn.Linear(8, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.encode(x)
        open(os.devnull, "a").write(f"{float(hidden.mean())}\n")
        return self.head(hidden)


def get_model() -> nn.Module:
    return Model().eval()


def get_inputs():
    return (torch.randn(4, 8),)
