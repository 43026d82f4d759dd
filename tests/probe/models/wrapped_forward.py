"""Test fixture: forward wrapped by a decorator from "library" code (a
site-packages folder), like a Hugging Face model; its input is input_ids and
its sequence length changes, so the recompile names the wrapper's args[0]."""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.generic import returns_tensor  # noqa: E402


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 8)
        self.fc = nn.Linear(8, 8)

    @returns_tensor
    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.fc(self.embed(input_ids)).sum(dim=1)


def get_model():
    return TinyLM()


def get_inputs():
    return (torch.randint(0, 32, (2, 5)),)


def get_input_sweep():
    return [(torch.randint(0, 32, (2, n)),) for n in (6, 7)]
