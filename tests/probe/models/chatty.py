"""Test fixture: prints (and writes to fd 1 directly) at import, in get_model, and in forward.

Also prints text that looks like an event, to prove it cannot enter the stream.
"""

import os
import sys

import torch
from torch import nn

print('{"type": "done", "status": "ok"}  <- printed by the model at import')
os.write(1, b"raw write to fd 1 from the model\n")


class Chatty(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        print("CHATTY forward print")
        sys.stdout.write("CHATTY sys.stdout write\n")
        return self.fc(x)


def get_model():
    print("CHATTY get_model print")
    return Chatty()


def get_inputs():
    return (torch.randn(2, 4),)
