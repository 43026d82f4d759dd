"""Test fixture: defines get_inputs() but forgets get_model()."""

import torch


def get_inputs():
    return (torch.randn(2, 4),)
