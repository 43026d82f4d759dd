"""Test fixture: a model file with a syntax error on line 9."""

import torch


def get_model():
    return torch.nn.Linear(4, 4)

def get_inputs(:
    return (torch.randn(2, 4),)
