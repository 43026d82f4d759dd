"""Benchmark-only: a tiny MLP, tens of microseconds per call on one CPU core.
Linear 128->128, GELU, Linear 128->128, LayerNorm; batch 16, float32."""

import torch
from torch import nn


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 128), nn.LayerNorm(128))


def get_inputs():
    return (torch.randn(16, 128),)
