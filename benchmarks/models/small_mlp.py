"""Benchmark-only: a tiny MLP, about 20-35 µs per call on one CPU core
(measured 34 µs eager on the 2-core Xeon of docs/BENCHMARKS.md).
Linear 64->64, GELU, Linear 64->64; batch 8, float32."""

import torch
from torch import nn


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(64, 64), nn.GELU(), nn.Linear(64, 64))


def get_inputs():
    return (torch.randn(8, 64),)
