"""Test fixture: a torch that lacks torch._dynamo.utils.get_compilation_metrics,
as a torch version that renamed it would (torch itself never calls it). The
probe falls back to its other counters and says so in one capture_warning."""

import torch
import torch._dynamo.utils
from torch import nn

del torch._dynamo.utils.get_compilation_metrics


def get_model():
    return nn.Linear(4, 4)


def get_inputs():
    return (torch.randn(2, 4),)
