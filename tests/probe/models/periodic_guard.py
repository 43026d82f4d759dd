"""Test fixture: a Python value the forward reads changes every 20 calls, so
a guard fails and torch recompiles in the middle of the measured calls, not
only at the start. The counter is kept out of the compiled code (a graph
break), as a step counter in a training loop would be."""

import torch
from torch import nn

EVERY = 20


class PeriodicGuard(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.calls = 0
        self.level = 0

    @torch._dynamo.disable
    def tick(self) -> None:
        self.calls += 1
        self.level = self.calls // EVERY

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.tick()
        return self.fc(x) * (1.0 + self.level * 1e-3)


def get_model() -> nn.Module:
    return PeriodicGuard()


def get_inputs():
    return (torch.randn(2, 8),)
