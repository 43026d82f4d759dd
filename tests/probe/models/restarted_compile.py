"""A float attribute fed to torch.full: under dynamic=True Inductor's
tensorify pass specializes the float and Dynamo restarts the analysis of
the same compile (attempt 1, "0/0_1" in torch's logs), so the backend sees
the graph twice; one graph runs."""

import torch


class Shifted(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.limit = 0.5

    def forward(self, x):
        return x + torch.full([], self.limit)


def get_model():
    return Shifted()


def get_inputs():
    return torch.randn(4, 8)
