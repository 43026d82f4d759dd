"""A forward that takes the step as a Python int, which the input sweep
changes on every call: torch 2.15 compiles it in as a constant first and, on
its first change, as a symbol that later steps reuse (recompile.value)."""

import torch


class StepScaled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x, step: int):
        return self.fc(x) * (step + 1)


def get_model():
    torch.manual_seed(0)
    return StepScaled()


def get_inputs():
    return (torch.randn(4, 16), 0)


def get_input_sweep():
    return [(torch.randn(4, 16), step) for step in range(1, 6)]
