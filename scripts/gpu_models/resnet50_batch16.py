"""torchvision's ResNet-50, random weights, a batch of 16 224x224 images: the
classic example of torch.compile guides, run by scripts/gpu-check.sh after
its checks when time is left (torchvision must be installed there)."""

import torch
import torchvision


def get_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return torchvision.models.resnet50(weights=None).eval()


def get_inputs():
    return (torch.randn(16, 3, 224, 224),)
