"""Test fixture: attention biases cached per device on the first call, as
timm's LeViT does in eval mode. Dynamo compiles the first call with the key
absent from the cache and guards on it, so the second call recompiles."""

import torch
from torch import nn


class CachedBias(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.bias_table = nn.Parameter(torch.zeros(8))
        self.bias_cache: dict[str, torch.Tensor] = {}

    def biases(self, device: torch.device) -> torch.Tensor:
        key = str(device)
        if key not in self.bias_cache:
            self.bias_cache[key] = self.bias_table * 2
        return self.bias_cache[key]

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x) + self.biases(x.device)


def get_model() -> nn.Module:
    return CachedBias().eval()


def get_inputs():
    return (torch.randn(4, 8),)
