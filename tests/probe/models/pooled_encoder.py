"""Test fixture: a sentence classifier in the common shape, nn.TransformerEncoder
with a key padding mask and a plain mean over every position. In eval under
no_grad eager takes PyTorch's fast path, which returns the padded positions as
zeros; the compiled graph computes values there, and the mean reads them, so
the two outputs differ everywhere. Eager with the fast path off agrees with
the compiled one."""

import torch
from torch import nn


class SentenceClassifier(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        layer = nn.TransformerEncoderLayer(
            d_model=32, nhead=4, dim_feedforward=64, batch_first=True
        )
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(32, 4)

    def forward(self, x: torch.Tensor, padding: torch.Tensor) -> torch.Tensor:
        return self.head(self.encoder(x, src_key_padding_mask=padding).mean(1))


def get_model() -> nn.Module:
    torch.manual_seed(0)
    return SentenceClassifier().eval()


def get_inputs():
    padding = torch.zeros(4, 10, dtype=torch.bool)
    for row, length in enumerate((10, 7, 5, 8)):
        padding[row, length:] = True
    return (torch.randn(4, 10, 32), padding)
