"""Test fixture: the model is a library's detector (fakelib in a site-packages
folder), as torchvision's SSD is; this file only builds it."""

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "site-packages"))

from fakelib.detector import LibraryDetector  # noqa: E402


def get_model():
    return LibraryDetector()


def get_inputs():
    return (torch.randn(12, 16),)
