"""Token ids and their padding mask, passed positionally, whose length changes
together: the recompile advice must mark both dynamic (one marked alone fails
with "Constraints violated")."""

import torch
from torch import nn


class MaskedPool(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(100, 16)
        self.head = nn.Linear(16, 2)

    def forward(self, tokens: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens) * mask.unsqueeze(-1)
        return self.head(x.sum(1) / mask.sum(1, keepdim=True))


def get_model() -> nn.Module:
    return MaskedPool()


def _batch(length: int) -> tuple:
    return torch.randint(0, 100, (2, length)), torch.ones(2, length)


def get_inputs():
    return _batch(12)


def get_input_sweep():
    return [_batch(n) for n in (7, 20, 33)]
