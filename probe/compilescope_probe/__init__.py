"""compilescope probe: runs one torch.compile setting and reports JSON Lines events.

Imports nothing but the standard library at package import, so an interpreter
without torch still gets as far as the `hello` event.
"""

__version__ = "0.1.0"
