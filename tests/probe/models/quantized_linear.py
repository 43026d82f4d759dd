"""Test fixture: a model quantized with torch.ao.quantization.quantize_dynamic,
then given to torch.compile. Dynamo cannot trace the quantized Linear: its
packed int8 weights are a TorchScript object, so the layer breaks the graph."""

import torch
from torch import nn


class Model(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.expand = nn.Linear(64, 128)
        self.project = nn.Linear(128, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = torch.relu(self.expand(x))
        return self.project(hidden)


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return torch.ao.quantization.quantize_dynamic(Model().eval(), {nn.Linear}, dtype=torch.qint8)


def get_inputs():
    return (torch.randn(8, 64),)
