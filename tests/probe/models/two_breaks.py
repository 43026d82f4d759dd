"""Test fixture: two graph breaks in one forward. The second lies in what
Dynamo compiles as torch_dynamo_resume_in_forward_at_21, the rest of forward
after the first break; the user wrote only forward."""

import torch
from torch import nn


class TwoBreaks(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 16)
        self.fc2 = nn.Linear(16, 16)
        self.pos = nn.Linear(16, 4)
        self.neg = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.fc1(x))
        # first break: print
        # (kept on line 21 so the resume function's name is stable)
        print("hidden", tuple(h.shape))
        h = torch.tanh(self.fc2(h))
        if h.sum() > 0:  # second break: a branch on the values, inside the resume function
            return self.pos(h)
        return self.neg(h)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return TwoBreaks()


def get_inputs():
    torch.manual_seed(1)
    return (torch.randn(4, 16),)
