"""A model file that compiles two of its parts itself, with the tracing-only
backends so that a test of mode as-written stays quick: a helper decorated
with @torch.compile(backend="eager"), and the second block by
Module.compile(backend="aot_eager")."""

import torch
from torch import nn


@torch.compile(backend="eager")
def doubled(x):
    return x * 2


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)

    def forward(self, x):
        return doubled(torch.relu(self.fc(x)))


def get_model():
    torch.manual_seed(0)
    model = nn.Sequential(Block(), Block())
    model[1].compile(backend="aot_eager", dynamic=False)
    return model


def get_inputs():
    return (torch.randn(4, 16),)
