"""A plain MLP: the demo model.

Lesson: a model torch.compile handles end to end. One graph, no breaks; what
remains is the question every user asks: is the compile worth it, and after
how many calls? Linear 512->1024->ReLU->1024->ReLU->10, batch 32, float32.
"""

import torch
from torch import nn


class MLP(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(512, 1024)
        self.fc2 = nn.Linear(1024, 1024)
        self.head = nn.Linear(1024, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.fc1(x))
        x = torch.relu(self.fc2(x))
        return self.head(x)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return MLP()


def get_inputs():
    return (torch.randn(32, 512),)
