"""A value grown in many small steps in bfloat16, as an integrator or a
running average does. Eager rounds after every step, and a step below half
a unit in the last place rounds away; Inductor fuses the steps into one
kernel that keeps the value in float32 and rounds once. The compiled output
is the nearer to float64's: outputs_check must see the two differ and say
which side is right."""

import torch


class SmallSteps(torch.nn.Module):
    def forward(self, x):
        for _ in range(24):
            x = x * 1.003
        return x


def get_model():
    return SmallSteps().to(torch.bfloat16)


def get_inputs():
    return (torch.linspace(0.5, 1.2, 256, dtype=torch.bfloat16).reshape(4, 64),)
