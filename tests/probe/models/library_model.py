"""Test fixture: the model is a library's class (fakelib in a site-packages
folder), as a torchvision or Hugging Face model is; this file only builds it."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.blocks import LibraryMLP  # noqa: E402


def get_model():
    return LibraryMLP()


def get_inputs():
    return (torch.randn(8, 64),)
