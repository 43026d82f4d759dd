"""Time a compile spends building torch's precompiled C++ header.

Inductor's C++ backend precompiles a header (`_precompile_header` in
torch/_inductor/codecache.py) into `gettempdir()/torchinductor_USER/
precompiled_headers`, a folder torch keeps global on purpose: a fresh
TORCHINDUCTOR_CACHE_DIR does not move it. So only the first C++ compile on a
machine (per compiler and flags) builds it, and every later one, in any
process, skips it. On this project's 2-core machine that is about 12 s of a
22 s first call. Left inside the compile phases, it makes whichever setting
of a comparison compiles first look slower: the probe times the calls that
built a new header and the compile split shows them as their own phase,
`precompiled_header`.
"""

from __future__ import annotations

import os
import time
from typing import Any

from . import fallbacks


def _headers(folder: str) -> set[str]:
    try:
        return {n for n in os.listdir(folder) if n.endswith(".gch")}
    except OSError:
        return set()


class HeaderBuildWatch:
    """Wraps codecache._precompile_header while installed; `built_ns` sums the
    calls after which a new .gch stood in torch's header folder."""

    def __init__(self) -> None:
        self.built_ns = 0
        self.built: list[str] = []  # the new headers' file names
        self._module: Any = None
        self._original: Any = None

    def install(self) -> None:
        try:
            from torch._inductor import codecache
        except Exception as e:
            fallbacks.missing("torch._inductor.codecache", e)
            return
        original = getattr(codecache, "_precompile_header", None)
        folder = getattr(codecache, "_HEADER_DIR", None)
        if not callable(original) or not isinstance(folder, str):
            # An older torch compiles without a precompiled header: nothing to split off.
            return

        def timed(*args: Any, **kwargs: Any) -> Any:
            before = _headers(folder)
            start = time.perf_counter_ns()
            try:
                return original(*args, **kwargs)
            finally:
                new = _headers(folder) - before
                if new:
                    self.built_ns += time.perf_counter_ns() - start
                    self.built.extend(sorted(new))

        self._module, self._original = codecache, original
        codecache._precompile_header = timed

    def uninstall(self) -> None:
        if self._module is not None:
            self._module._precompile_header = self._original
            self._module = self._original = None

    def take_ns(self) -> int:
        """The header-building time since the last take."""
        ns, self.built_ns = self.built_ns, 0
        return ns
