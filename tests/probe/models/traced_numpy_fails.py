"""Test fixture: a numpy percentile inside forward that runs eagerly but
fails under Dynamo (torch 2.15 traces numpy through torch, and float() of
the traced percentile raises), whatever the backend: Dynamo's own failure."""

import numpy as np
import torch
from torch import nn


class Clip(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        limit = float(np.percentile(x.detach().numpy(), 99))
        return x.clamp(max=limit)


def get_model() -> nn.Module:
    return nn.Sequential(nn.Linear(8, 8), Clip())


def get_inputs():
    return (torch.randn(2, 8),)
