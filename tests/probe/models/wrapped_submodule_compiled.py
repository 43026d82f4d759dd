"""Test fixture for mode as-written: the model file compiles a submodule's
forward alone, and that forward is wrapped by a "library" decorator (like a
Hugging Face model inside a user's wrapper that calls generate()). The outer
forward feeds it a prefix, then one token, so the submodule recompiles on a
length the user's input never had: the recompile is the library frame's own,
not the model's forward."""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from wrapped_forward import TinyLM  # noqa: E402  (its forward under fakelib's decorator)


class Decoder(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lm = TinyLM()

    def forward(self, prompt: torch.Tensor) -> torch.Tensor:
        first = self.lm(prompt)
        return first + self.lm(prompt[:, -1:])


def get_model():
    model = Decoder()
    model.lm.forward = torch.compile(model.lm.forward, backend="eager", dynamic=False)
    return model


def get_inputs():
    return (torch.randint(0, 32, (2, 5)),)
