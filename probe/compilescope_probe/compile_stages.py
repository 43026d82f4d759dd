"""The compile sub-phase torch is in right now, for the progress line.

torch's structured trace ("torch.__trace") logs a `chromium_event` envelope at
the start ("B") and end ("E") of each `dynamo_timed` region. The probe maps the
region names it knows to a few stages a user recognises and emits
`compile_progress` {"stage": ...} when the stage changes: the stage of the
innermost region open, so a region's end returns to the one around it, and
{"stage": ""} when a frame's compile ends. Unknown names keep the current
stage, so a torch that renames its regions shows less, never wrong."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from . import fallbacks

TRACING = "tracing"
AOT = "AOT autograd"
CODEGEN = "Inductor codegen"
BACKEND_COMPILE = "C++/Triton compile"

# The region around one frame's whole compile; its end ends the stage.
FRAME_COMPILE = "entire_frame_compile"

# Region name (or its prefix, ending in ".") -> stage.
_STAGES = {
    FRAME_COMPILE: TRACING,
    "bytecode_tracing": TRACING,
    "create_aot_dispatcher_function": AOT,
    "aot_collect_metadata": AOT,
    "aot_trace_joint_graph": AOT,
    "min_cut_rematerialization_partition": AOT,
    "inductor_compile": CODEGEN,
    "fx_codegen_and_compile": CODEGEN,
    "GraphLowering.": CODEGEN,
    "Scheduler.": CODEGEN,
    "PythonWrapperCodegen.": CODEGEN,
    "code_gen": CODEGEN,
    "compile_file": BACKEND_COMPILE,
    "async_compile.wait": BACKEND_COMPILE,
    "PyCodeCache.load_by_key_path": BACKEND_COMPILE,
}


def stage_of(region: str) -> str | None:
    stage = _STAGES.get(region)
    if stage is None and "." in region:
        stage = _STAGES.get(region.split(".", 1)[0] + ".")
    return stage


class StageWatcher(logging.Handler):
    """Emits compile_progress when torch's compile enters a new stage. Runs
    inside torch's compile: cheap, and never raises."""

    def __init__(self, emit: Callable[..., None]) -> None:
        super().__init__(level=logging.DEBUG)
        self._emit = emit
        self.stage: str | None = None
        # The stages of the regions open now, innermost last: a region's end
        # returns to the stage around it (Inductor compiles a kernel's C++
        # while its codegen goes on).
        self._open: list[tuple[str, str]] = []
        self._logger: logging.Logger | None = None
        self._old_level: int | None = None

    def install(self) -> None:
        logger = logging.getLogger("torch.__trace")
        self._logger, self._old_level = logger, logger.level
        logger.addHandler(self)
        logger.setLevel(logging.DEBUG)

    def uninstall(self) -> None:
        if self._logger is not None:
            self._logger.removeHandler(self)
            if self._old_level is not None:
                self._logger.setLevel(self._old_level)
            self._logger = None

    def emit(self, record: logging.LogRecord) -> None:
        try:
            metadata = getattr(record, "metadata", None)
            if not metadata or "chromium_event" not in metadata:
                return
            payload: Any = getattr(record, "payload", None)
            if isinstance(payload, str):
                payload = json.loads(payload)
            if not isinstance(payload, dict):
                return
            name = str(payload.get("name", ""))
            phase = payload.get("ph")
            if phase == "B" and (stage := stage_of(name)) is not None:
                self._open.append((name, stage))
            elif phase == "E" and name == FRAME_COMPILE:
                self._open.clear()  # a frame's compile ended: nothing compiles now
            elif phase == "E":
                for i in range(len(self._open) - 1, -1, -1):
                    if self._open[i][0] == name:
                        del self._open[i]
                        break
            else:
                return
            # "" says torch compiles nothing now, so a recompile in the sweep
            # is told from running calls.
            stage = self._open[-1][1] if self._open else None
            if stage != self.stage:
                self.stage = stage
                self._emit("compile_progress", stage=stage or "")
        except Exception as e:  # never disturb torch's compile
            fallbacks.missing("torch's chromium_event trace records (compile stages)", e)
