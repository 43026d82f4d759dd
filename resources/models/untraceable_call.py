"""A call Dynamo cannot look inside: a C function from the standard library.

Lesson: Dynamo traces Python bytecode; a function written in C (here
zlib.crc32, used to derive a per-shape scale) has no bytecode to trace, so
Dynamo "skips" it and breaks the graph around the call. Move such calls out
of forward, or mark a helper with torch.compiler.disable on purpose.
"""

import zlib

import torch
from torch import nn


class ShapeScaledBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(32, 32)
        self.out = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.proj(x))
        tag = zlib.crc32(repr(tuple(x.shape)).encode())  # the graph break: C code
        scale = 1.0 + (tag % 7) / 100.0
        return self.out(h * scale)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return ShapeScaledBlock()


def get_inputs():
    return (torch.randn(16, 32),)
