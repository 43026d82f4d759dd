"""A small convolutional network (batch 8, 3x32x32 images).

Lesson: convolutions, batch norm and pooling compile into one graph; in
eval mode Inductor folds batch norm into the convolution, and fuses the
pointwise ReLUs into the kernels around them.
"""

import torch
from torch import nn


class ConvNet(nn.Module):
    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Linear(32 * 8 * 8, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.features(x)
        return self.head(torch.flatten(x, 1))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return ConvNet()


def get_inputs():
    return (torch.randn(8, 3, 32, 32),)
