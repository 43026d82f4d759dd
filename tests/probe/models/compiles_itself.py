"""A model file as deployed code writes it: it compiles on its own.

get_model() returns torch.compile(...) of a model one of whose blocks also
calls Module.compile(), and a helper of the file is decorated with
@torch.compile. The probe undoes all three, so mode eager times eager code."""

import torch
from torch import nn


@torch.compile(dynamic=False)
def scaled_gelu(x):
    return nn.functional.gelu(x) * 1.5


@torch._dynamo.disable
def left_alone(x):  # disabled, not compiled: stays as written
    return x


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 32)

    def forward(self, x):
        return left_alone(scaled_gelu(self.fc(x)))


def get_model():
    torch.manual_seed(0)
    first, second = Block(), Block()
    second.compile(mode="reduce-overhead")
    model = nn.Sequential(first, second, nn.Linear(32, 4))
    return torch.compile(model, mode="max-autotune-no-cudagraphs")


def get_inputs():
    return (torch.randn(4, 32),)
