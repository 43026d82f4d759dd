"""Test fixture: get_model() forgets .eval(); the model holds batch norm and
dropout, which act otherwise in training mode."""

import torch
from torch import nn


def get_model():
    return nn.Sequential(
        nn.Linear(8, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 2)
    )


def get_inputs():
    return (torch.randn(4, 8),)
