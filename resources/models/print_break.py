"""A print() in forward.

Lesson: Dynamo cannot put a print into a graph, so it ends the graph before
the print, runs the print in plain Python, and starts a new graph after it:
two graphs and one graph break, at the print's line. Debug prints left in a
model cost a break each; remove them, or log outside the compiled region.
"""

import torch
from torch import nn


class PrintingBlock(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = nn.Linear(64, 128)
        self.decoder = nn.Linear(128, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.encoder(x))
        print("hidden mean:", hidden.mean())  # the graph break
        return self.decoder(hidden)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return PrintingBlock()


def get_inputs():
    return (torch.randn(16, 64),)
