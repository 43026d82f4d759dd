"""Test fixture: a debug log line in forward whose message reads a number
with .item(). Dynamo breaks the graph twice on that line: for the number and
for the logger (torch 2.15), though the message is never written."""

import logging

import torch
from torch import nn

log = logging.getLogger(__name__)


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.hidden = nn.Linear(16, 16)
        self.head = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.hidden(x).relu()
        log.debug(f"hidden {tuple(h.shape)} mean {h.mean().item():.3f}")
        return self.head(h)


def get_model() -> nn.Module:
    return Model().eval()


def get_inputs():
    return (torch.randn(4, 16),)
