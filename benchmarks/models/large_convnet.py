"""Benchmark-only: a small image network at 64x64, milliseconds per call on one
CPU core. Three conv-BN-ReLU stages (32, 64, 128 channels) with pooling, then
a linear head; batch 4."""

import torch
from torch import nn


def stage(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(), nn.MaxPool2d(2)
    )


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(
        stage(3, 32), stage(32, 64), stage(64, 128), nn.Flatten(), nn.Linear(128 * 8 * 8, 10)
    )


def get_inputs():
    return (torch.randn(4, 3, 64, 64),)
