"""Test fixture: get_model() raises (line 7)."""

import torch


def get_model():
    raise RuntimeError("cannot build the model: weights missing on purpose")


def get_inputs():
    return (torch.randn(2, 4),)
