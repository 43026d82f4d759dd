"""Test fixture: forces as the negative gradient of a learned energy, the way
physics-informed and molecular models compute them: requires_grad_() on the
input and torch.autograd.grad inside forward, both graph breaks by default."""

import torch
from torch import nn


class EnergyModel(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.energy = nn.Sequential(nn.Linear(3, 32), nn.Tanh(), nn.Linear(32, 1))

    def forward(self, positions: torch.Tensor) -> torch.Tensor:
        with torch.enable_grad():
            positions.requires_grad_(True)
            energy = self.energy(positions).sum()
            (gradient,) = torch.autograd.grad(energy, positions)
        return -gradient


def get_model() -> nn.Module:
    return EnergyModel().eval()


def get_inputs():
    return (torch.randn(64, 3),)
