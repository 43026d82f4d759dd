"""Test fixture: reflect padding by amounts held as tensors (a buffer), as
transformers' EnCodec pads. Dynamo breaks on the branch over them, and the
code after the break passes the tensors to nn.functional.pad: the backend
(aot_eager as Inductor) fails on it with aten._local_scalar_dense, and torch
2.15 breaks the graph there and runs the rest of _pad1d eagerly."""

import torch
from torch import nn


class PaddedConv(nn.Module):
    """Reflect-pads by amounts it holds as tensors, then convolves."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(4, 4, 3)
        self.padding_total = nn.Buffer(torch.tensor(2), persistent=False)

    @staticmethod
    def _pad1d(x, paddings):
        length = x.shape[-1]
        widest = max(paddings)
        grow = 0
        if length <= widest:  # a branch on a tensor: the graph breaks here
            grow = widest - length + 1
            x = nn.functional.pad(x, (0, grow))
        padded = nn.functional.pad(x, paddings, "reflect")
        keep = padded.shape[-1] - grow
        return padded[..., :keep]

    def forward(self, x):
        extra = (x.shape[-1] + self.padding_total) % 4
        return self.conv(self._pad1d(x, (self.padding_total, extra)))


def get_model():
    torch.manual_seed(0)
    return PaddedConv().eval()


def get_inputs():
    torch.manual_seed(0)
    return (torch.randn(1, 4, 30),)
