"""Test fixture for mode as-written: the file compiles a submodule's forward,
wrapped by a "library" decorator that passes **kwargs on, and the outer
forward calls it first with two keyword arguments, then with one (as
generate() calls a model's forward for the prompt, then for each token). torch
guards on how many keyword arguments the wrapper got: one recompile."""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.generic import returns_tensor  # noqa: E402  (a library's decorator)


class Step(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = nn.Linear(16, 16)

    @returns_tensor
    def forward(self, x: torch.Tensor, scale: float = 1.0, shift: float = 0.0) -> torch.Tensor:
        return self.linear(x) * scale + shift


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.step = Step()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        first = self.step(x, scale=2.0, shift=1.0)
        return self.step(first, scale=0.5)


def get_model():
    model = Model()
    model.step.forward = torch.compile(model.step.forward, backend="eager")
    return model


def get_inputs():
    return (torch.randn(4, 16),)
