"""Test fixture: the model calls a library function under a decorator's
wrapper (fakelib's stand-in for transformers' @deprecate_kwarg) in a loop
that breaks the graph, so Dynamo runs forward eagerly and compiles the
wrapper as a frame of its own; the input sweep's new width recompiles it."""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.deprecation import prepare_inputs  # noqa: E402


class Steps(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for _ in range(2):
            x = prepare_inputs(x)
            torch._dynamo.graph_break()
        return x


def get_model():
    return Steps()


def get_inputs():
    return (torch.randn(2, 8),)


def get_input_sweep():
    return [(torch.randn(2, n),) for n in (8, 12)]
