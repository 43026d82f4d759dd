"""Test fixture: a model that appends to a cache it is given, as a Hugging
Face DynamicCache does on every decoding step: each call sees a longer cache."""

import torch
from torch import nn


class Cache:
    def __init__(self) -> None:
        self.keys = torch.zeros(1, 4)


class Appending(nn.Module):
    def forward(self, x: torch.Tensor, cache: Cache) -> torch.Tensor:
        cache.keys = torch.cat([cache.keys, x], dim=0)
        return cache.keys.sum(0)


def get_model() -> nn.Module:
    return Appending()


def get_inputs():
    return (torch.ones(1, 4), Cache())
