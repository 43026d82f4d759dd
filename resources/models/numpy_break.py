"""A NumPy call on a tensor's data.

Lesson: Dynamo can trace many NumPy functions by translating them to torch,
but not all. np.interp has no torch counterpart, so the graph breaks to hand
the array to NumPy. Prefer torch functions in forward (here, a small lookup
table with torch.bucketize and a lerp would do).
"""

import numpy as np
import torch
from torch import nn

_XP = np.linspace(-3.0, 3.0, 7)
_FP = np.tanh(_XP)


class NumpyActivation(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 32)
        self.out = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.proj(x)
        curve = np.interp(h.numpy(), _XP, _FP)  # the graph break: NumPy outside torch
        return self.out(torch.from_numpy(curve).float())


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return NumpyActivation()


def get_inputs():
    return (torch.randn(16, 32),)
