"""Test fixture: a post-grad pass of the model file's own that raises inside
Inductor, so the compile fails under Inductor only: backends eager and
aot_eager run the model."""

import torch
import torch._inductor.config
from torch import nn


def refuse(graph: torch.fx.Graph) -> None:
    raise RuntimeError("this pass refuses every graph")


def get_model() -> nn.Module:
    torch._inductor.config.post_grad_custom_post_pass = refuse
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU())


def get_inputs():
    return (torch.randn(2, 8),)
