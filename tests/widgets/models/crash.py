"""Fake model for GUI tests: the fake probe only reads the file name."""
