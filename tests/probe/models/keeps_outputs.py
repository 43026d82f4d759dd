"""A model that keeps a copy of every call's output (a debugging history left
in), 64 KiB per call: malloc's bytes in use grow by that much each call. The
copy is made outside the graph, so torch.compile neither guards on the list's
length nor recompiles for it."""

import torch

ROWS, COLS = 256, 64  # one float32 output: 64 KiB


class KeepsOutputs(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(COLS, COLS)
        self.history = []

    def forward(self, x):
        y = self.lin(x)
        self._record(y)
        return y

    @torch.compiler.disable
    def _record(self, y):
        self.history.append(y.detach().clone())


def get_model():
    return KeepsOutputs()


def get_inputs():
    return (torch.randn(ROWS, COLS),)
