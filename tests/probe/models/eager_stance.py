"""A model file that sets torch.compile's stance to force_eager when imported,
as a debugging session left it: torch.compile then runs everything eagerly,
with no graph and no graph break to show for it."""

import torch

torch.compiler.set_stance("force_eager")


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(32, 32)

    def forward(self, x):
        return torch.relu(self.fc(x))


def get_model():
    return Net()


def get_inputs():
    return (torch.randn(4, 32),)
