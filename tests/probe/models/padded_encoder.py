"""Test fixture: nn.TransformerEncoder with a key padding mask. In eval under
no_grad eager takes PyTorch's fast path, which runs the padded batch as
nested tensors and returns the padded positions as zeros; the compiled graph
computes values there. The outputs agree everywhere else."""

import torch
from torch import nn


def get_model() -> nn.Module:
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(d_model=16, nhead=2, dim_feedforward=32, batch_first=True)
    return nn.TransformerEncoder(layer, num_layers=1).eval()


def get_inputs():
    tokens = torch.randn(2, 8, 16)
    padding = torch.zeros(2, 8, dtype=torch.bool)
    padding[1, 5:] = True
    return {"src": tokens, "src_key_padding_mask": padding}
