"""Test fixture: forward under a library decorator whose wrapper takes
everything as *args (transformers' @deprecate_kwarg on BloomForCausalLM), so
its args[0] is self and args[1] input_ids; the sequence length changes."""

import os
import sys

import torch
from torch import nn

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.deprecation import renamed_kwarg  # noqa: E402


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(32, 8)
        self.fc = nn.Linear(8, 8)

    @renamed_kwarg("past", "cache")
    def forward(self, input_ids: torch.Tensor, cache: torch.Tensor | None = None) -> torch.Tensor:
        return self.fc(self.embed(input_ids)).sum(dim=1)


def get_model():
    return TinyLM()


def get_inputs():
    return (torch.randint(0, 32, (2, 5)),)


def get_input_sweep():
    return [(torch.randint(0, 32, (2, n)),) for n in (6, 7)]
