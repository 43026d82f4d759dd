"""A branch on a count read from tensor values, traced as a symbol
(capture_scalar_outputs): under fullgraph=True torch cannot decide the
branch and fails, rather than breaking the graph."""

import torch

torch._dynamo.config.capture_scalar_outputs = True


class CountBranch(torch.nn.Module):
    def forward(self, x):
        n = (x > 0).sum().item()
        if n > 3:
            return x * 2
        return x


def get_model():
    return CountBranch()


def get_inputs():
    return torch.randn(16)
