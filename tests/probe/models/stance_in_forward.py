"""Sets torch.compiler's stance inside forward: torch refuses to trace that."""

import torch


class StanceInForward(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        with torch.compiler.set_stance("force_eager"):
            return torch.relu(self.linear(x))


def get_model():
    return StanceInForward()


def get_inputs():
    return (torch.randn(2, 8),)
