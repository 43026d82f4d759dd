"""A model that takes fresh pages from the OS on every call: its 40 MiB
buffer is above glibc's largest mmap threshold (32 MiB), so malloc maps it
for each call and unmaps it when it is freed, whatever the tunables say."""

import torch

BUFFER_BYTES = 40 << 20


class FreshPages(torch.nn.Module):
    def forward(self, x):
        scratch = torch.empty(BUFFER_BYTES // 4, dtype=torch.float32)
        scratch.fill_(1.0)  # touches every page
        return x + scratch[: x.numel()].view_as(x)


def get_model():
    return FreshPages()


def get_inputs():
    return (torch.randn(4, 4),)
