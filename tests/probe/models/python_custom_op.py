"""A model whose middle runs a custom op written in Python (torch.library):
Inductor calls it as a black box, and torch's profiler records no event of
its own, only the ops its body runs. The op is costlier than the matmuls
around it, so a window that loses its time is easy to tell."""

import torch

NAMESPACE = "compilescope_fixture"


@torch.library.custom_op(f"{NAMESPACE}::looped_mm", mutates_args=())
def looped_mm(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    # Row blocks one by one, as a hand-written grouped matmul does.
    out = torch.zeros(x.shape[0], w.shape[1])
    for i in range(0, x.shape[0], 16):
        out[i : i + 16] = x[i : i + 16] @ w
    return out


@looped_mm.register_fake
def _(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return x.new_empty(x.shape[0], w.shape[1])


class Model(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.before = torch.nn.Linear(32, 64, bias=False)
        self.w = torch.nn.Parameter(torch.randn(64, 64) / 8)
        self.after = torch.nn.Linear(64, 32, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = torch.relu(self.before(x))
        h = torch.tanh(looped_mm(h, self.w))
        return self.after(h)


def get_model() -> torch.nn.Module:
    torch.manual_seed(0)
    return Model().eval()


def get_inputs() -> tuple:
    return (torch.randn(256, 32),)
