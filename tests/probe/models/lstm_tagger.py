"""Test fixture: a tagger around nn.LSTM, which Dynamo does not trace unless
torch._dynamo.config.allow_rnn is set: the graph breaks at the call."""

import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        out, _ = self.lstm(self.embed(tokens))
        return self.head(out)


def get_model() -> nn.Module:
    return Tagger()


def get_inputs():
    return (torch.randint(0, 50, (2, 6)),)


# Other lengths, under dynamic=auto: the new length recompiles forward and the
# frame after the break (on the LSTM's output, which torch carries across the
# break as ___stack0[0]), and the recompiled forward meets the break again.
def get_input_sweep():
    return [(torch.randint(0, 50, (2, n)),) for n in (9, 13)]
