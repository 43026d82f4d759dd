"""A tiny attention model over token sequences of varying length.

Lesson: the `dynamic=` setting. Run with --sweep, which feeds the lengths of
get_input_sweep() after the measured calls:
- dynamic=false: every new length recompiles (one specialised graph each,
  until torch's recompile limit);
- dynamic=auto (the default): the first new length recompiles once with the
  length marked dynamic (a symbol like s0); later lengths reuse that graph;
- dynamic=true: the first compile is already dynamic; no recompiles.
"""

import math

import torch
from torch import nn

VOCAB = 1000
BATCH = 4


class TinyAttention(nn.Module):
    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, 2)
        self.scale = 1.0 / math.sqrt(dim)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        x = self.embed(tokens)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        weights = torch.softmax(q @ k.transpose(-2, -1) * self.scale, dim=-1)
        x = x + self.proj(weights @ v)
        return self.head(x.mean(dim=1))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return TinyAttention()


def _tokens(length: int) -> torch.Tensor:
    return torch.randint(0, VOCAB, (BATCH, length))


def get_inputs():
    return (_tokens(32),)


def get_input_sweep():
    return [(_tokens(n),) for n in (16, 48, 64, 96, 128)]
