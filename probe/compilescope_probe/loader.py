"""Turning a model spec (.py file, torchvision:NAME, .pt2 archive) into a
model, its inputs and an optional input sweep."""

from __future__ import annotations

import dataclasses
import difflib
import importlib.util
import inspect
import os
import re
import sys
from collections.abc import Mapping
from typing import Any

from . import fallbacks
from .errors import ProbeError, exc_summary, exit_words, format_exc, pip_hint, user_location
from .frames import FrameClassifier


@dataclasses.dataclass
class LoadedModel:
    spec: str
    name: str
    file: str | None
    model: Any
    inputs: tuple
    sweep: list[tuple] | None
    # get_inputs(batch_size) of a .py spec whose get_inputs takes one
    # (batch_parameter); None: the walk scales dimension 0 (docs/measuring.md).
    batch_inputs: Any = None
    # The keyword names when get_inputs() gave a dict: `inputs` holds their
    # values in that order and `model` is a KeywordCall (docs/protocol.md).
    input_names: tuple[str, ...] | None = None
    # The model's own torch.compile calls, undone on load (own_compiles.py).
    undone: Any = None

    @property
    def own_compiles(self) -> list[dict]:
        return self.undone.calls if self.undone is not None else []


def batch_parameter(fn: Any) -> tuple[bool, bool]:
    """Whether `fn` (a model file's get_inputs) takes a batch size: its first
    parameter is positional (`def get_inputs(batch_size=8)`, or `*args`).
    Returns (takes one, must be given one: no default)."""
    import inspect

    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):  # no signature to read: called without one, as always
        return False, False
    if not params:
        return False, False
    first = params[0]
    if first.kind == inspect.Parameter.VAR_POSITIONAL:
        return True, False
    if first.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD):
        return True, first.default is inspect.Parameter.empty
    return False, False


def _syntax_error(e: SyntaxError, path: str) -> ProbeError:
    """The model file does not parse: say where, show the line."""
    line = e.lineno or 0
    text = (e.text or "").strip()
    return ProbeError(
        "model_syntax_error",
        f"Syntax error in {e.filename or path}:{line}: {e.msg}"
        + (f" (`{text}`)" if text else "")
        + ". Fix that line and run again.",
        tb=format_exc(e),
        file=e.filename or path,
        line=line,
    )


def _as_dict(value: Any) -> Any:
    """A mapping that is not a dict as one: a Hugging Face tokenizer's output
    (BatchEncoding, a UserDict) is what `model(**inputs)` is called with."""
    if isinstance(value, Mapping) and not isinstance(value, dict):
        return dict(value)
    return value


def _as_input_tuple(value: Any, what: str, file: str, names: tuple | None = None) -> tuple:
    """The inputs as the positional values the harness passes; a dict of
    keyword arguments (Hugging Face's `model(**inputs)`) gives its values in
    the order of `names` (the first dict's keys), which it must match."""
    import torch

    value = _as_dict(value)
    if names is not None:
        if not isinstance(value, dict) or tuple(value) != names:
            raise ProbeError(
                "missing_get_inputs",
                f"{what} in {file} returned {_keys_text(value)}; get_inputs() gave the keyword "
                f"arguments {', '.join(names)}, so every input must be a dict of those keys in "
                f"that order.",
            )
        return tuple(value.values())
    if isinstance(value, torch.Tensor):
        return (value,)
    if isinstance(value, (tuple, list)):
        return tuple(value)
    raise ProbeError(
        "missing_get_inputs",
        f"{what} in {file} returned {type(value).__name__}; it must return a tensor, "
        f"a tuple/list of the model's positional arguments, or a dict (any mapping, such as a "
        f"tokenizer's output) of its keyword arguments.",
    )


def _keys_text(value: Any) -> str:
    if isinstance(value, dict):
        return "a dict of " + (", ".join(map(str, value)) or "no keys")
    return type(value).__name__


def _keyword_names(value: Any, what: str, file: str) -> tuple[str, ...] | None:
    """The keys of a get_inputs() dict; None for positional inputs."""
    value = _as_dict(value)
    if not isinstance(value, dict):
        return None
    names = tuple(value)
    if not names or not all(isinstance(k, str) and k.isidentifier() for k in names):
        raise ProbeError(
            "missing_get_inputs",
            f"{what} in {file} returned {_keys_text(value)}; a dict of inputs must name the "
            f"model's keyword arguments (strings, at least one).",
        )
    return names


def keyword_call(model: Any, names: tuple[str, ...]) -> Any:
    """The model behind a module that takes `names`' values positionally and
    passes them on by name: the harness, the batch walk and export all pass
    inputs by position."""
    import torch

    class KeywordCall(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.model = model  # a Module is registered, so .to() and .eval() reach it
            self.keyword_names = names

        def forward(self, *values: Any) -> Any:
            return self.model(**dict(zip(names, values)))

    return KeywordCall()


def keyword_names(model: Any) -> tuple[str, ...] | None:
    """The names a keyword_call wrapper passes its values by; None for any
    other model."""
    if type(model).__name__ == "KeywordCall" and type(model).__module__ == __name__:
        return model.keyword_names
    return None


def _raised(
    kind: str, func: str, file: str, exc: BaseException, classifier: FrameClassifier
) -> ProbeError:
    loc = user_location(exc, classifier)
    where = f" at {loc[0]}:{loc[1]}" if loc else ""
    if isinstance(exc, SystemExit):
        # A script's habit (no config file: exit) ends the probe with no word.
        return ProbeError(
            kind,
            f"{func} in {file} called {exit_words(exc)}{where}, which would end the probe "
            f"without a word. Make {func} return (or raise an exception that says what is "
            f"wrong): compilescope calls it as a library function.",
            tb=format_exc(exc),
        )
    text = str(exc)
    if any(words in text for words in _NO_CUDA_WORDS):
        # A model file written for a GPU machine, run where there is none.
        return ProbeError(
            kind,
            f"{func} in {file} asks for CUDA{where}, which this machine lacks "
            f"({exc_summary(exc)}). Build the model and its inputs on the CPU and leave the "
            f"device to compilescope: it moves both to --device (cuda where there is a GPU).",
            tb=format_exc(exc),
        )
    return ProbeError(
        kind,
        f"{func} in {file} raised {exc_summary(exc)}{where}. Fix it so that {func} runs on its own.",
        tb=format_exc(exc),
    )


# What torch says when a tensor is put on CUDA where there is none.
_NO_CUDA_WORDS = (
    "Found no NVIDIA driver",
    "Torch not compiled with CUDA enabled",
    "No CUDA GPUs are available",
)


def _import_file(path: str, classifier: FrameClassifier):
    name = "compilescope_user_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ProbeError("model_import_error", f"Python cannot import {path}: is it a .py file?")
    module = importlib.util.module_from_spec(spec)
    # Sibling imports of the model file work as they would when run directly.
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except SyntaxError as e:
        raise _syntax_error(e, path) from None
    except ModuleNotFoundError as e:
        missing = e.name or "a module"
        loc = user_location(e, classifier)
        where = f" (at {loc[0]}:{loc[1]})" if loc else ""
        raise ProbeError(
            "model_import_error",
            f"Importing {path} failed: module '{missing}' is not installed in {sys.executable}{where}. "
            f"Install it with {pip_hint(missing.split('.')[0])}, or pick the interpreter of the "
            f"environment your model runs in.",
            tb=format_exc(e),
        ) from None
    except BaseException as e:
        if isinstance(e, KeyboardInterrupt):
            raise
        loc = user_location(e, classifier)
        where = f" at {loc[0]}:{loc[1]}" if loc else ""
        raise ProbeError(
            "model_import_error",
            f"Importing {path} failed: {exc_summary(e)}{where}. The file must import cleanly "
            f"(try `python {path}`).",
            tb=format_exc(e),
        ) from None
    return module


def load_py(path: str, classifier: FrameClassifier, batch_size: int | None = None) -> LoadedModel:
    module = _import_file(path, classifier)
    get_model = getattr(module, "get_model", None)
    if not callable(get_model):
        raise ProbeError(
            "missing_get_model",
            f"{path} does not define get_model(). Add a function get_model() that returns "
            f"the torch.nn.Module (or function) to compile.",
        )
    get_inputs = getattr(module, "get_inputs", None)
    if not callable(get_inputs):
        raise ProbeError(
            "missing_get_inputs",
            f"{path} does not define get_inputs(). Add a function get_inputs() that returns "
            f"the model's example inputs: a tensor or a tuple of tensors.",
        )
    try:
        model = get_model()
    except (Exception, SystemExit) as e:
        raise _raised("get_model_raised", "get_model()", path, e, classifier) from None
    import torch

    from . import own_compiles

    undone = own_compiles.undo(torch, model, vars(module))
    model = undone.model
    if not callable(model):
        raise ProbeError(
            "missing_get_model",
            f"get_model() in {path} returned {type(model).__name__}, which cannot be called; "
            f"return a torch.nn.Module or a function.",
        )
    takes_batch, needs_batch = batch_parameter(get_inputs)
    if needs_batch and batch_size is None:
        raise ProbeError(
            "missing_get_inputs",
            f"get_inputs() in {path} needs an argument, but a run that does not scale the batch "
            f"calls it with none. Give its batch size a default, as in "
            f"`def get_inputs(batch_size=8)`.",
        )
    call = f"get_inputs({batch_size})" if needs_batch else "get_inputs()"
    try:
        given = get_inputs(batch_size) if needs_batch else get_inputs()
    except (Exception, SystemExit) as e:
        raise _raised("get_model_raised", call, path, e, classifier) from None
    names = _keyword_names(given, call, path)
    inputs = _as_input_tuple(given, call, path, names)
    sweep = None
    get_sweep = getattr(module, "get_input_sweep", None)
    if callable(get_sweep):
        try:
            raw = get_sweep()
        except (Exception, SystemExit) as e:
            raise _raised("get_model_raised", "get_input_sweep()", path, e, classifier) from None
        if not isinstance(raw, (list, tuple)):
            raise ProbeError(
                "missing_get_inputs",
                f"get_input_sweep() in {path} returned {type(raw).__name__}; it must return a list of input tuples.",
            )
        sweep = [_as_input_tuple(item, "get_input_sweep()", path, names) for item in raw]
    name = type(model).__name__ if not hasattr(model, "__name__") else model.__name__
    name = f"{os.path.splitext(os.path.basename(path))[0]} ({name})"
    batch_inputs = None
    if takes_batch:

        def batch_inputs(n: int) -> tuple:
            return _as_input_tuple(get_inputs(n), f"get_inputs({n})", path, names)

    if names is not None:
        model = keyword_call(model, names)
    return LoadedModel(path, name, path, model, inputs, sweep, batch_inputs, names, undone)


def load_torchvision(name: str) -> LoadedModel:
    try:
        import torchvision  # noqa: F401
        from torchvision import models
    except ImportError as e:
        raise ProbeError(
            "model_import_error",
            f"torchvision is not installed in {sys.executable}, so torchvision:{name} cannot be built. "
            f"Install it with {pip_hint('torchvision')}, or pick a .py model.",
            tb=format_exc(e),
        ) from None
    try:
        available = set(models.list_models())
    except Exception as e:
        fallbacks.missing("torchvision.models.list_models", e)
        available = set()
    if available and name not in available:
        # Names that start with what was typed ("vit"), then near misses ("resnet1000").
        key = name.lower()
        close = [n for n in sorted(available) if n.startswith(key)]
        close += [
            n
            for n in difflib.get_close_matches(key, sorted(available), n=8, cutoff=0.6)
            if n not in close
        ]
        close = close[:8]
        raise ProbeError(
            "model_not_found",
            f"torchvision has no model named '{name}'."
            + (f" Similar names: {', '.join(close)}." if close else "")
            + " See torchvision.models.list_models().",
        )
    # Random weights, nothing downloaded: detection and segmentation builders
    # also fetch a pretrained backbone unless told not to.
    kwargs: dict[str, Any] = {"weights": None}
    try:
        if "weights_backbone" in inspect.signature(models.get_model_builder(name)).parameters:
            kwargs["weights_backbone"] = None
    except (TypeError, ValueError, KeyError):  # no signature: the plain call, as before
        pass
    try:
        model = models.get_model(name, **kwargs)
    except Exception as e:
        raise ProbeError(
            "get_model_raised",
            f"torchvision.models.get_model('{name}', weights=None) raised {exc_summary(e)}.",
            tb=format_exc(e),
        ) from None
    size = 224
    try:  # the crop size the pretrained weights were made for, from metadata only
        weights = models.get_model_weights(name).DEFAULT
        crop = getattr(weights.transforms(), "crop_size", None)
        if crop:
            size = int(crop[0] if isinstance(crop, (list, tuple)) else crop)
    except Exception:  # a model with no pretrained weights has no crop size: 224 it is
        pass
    model.eval()
    return LoadedModel(
        f"torchvision:{name}", name, None, model, torchvision_inputs(models, name, size), None
    )


# Frames of a video clip: what torchvision's video weights were trained on
# (MViT needs exactly 16; S3D at least 14).
VIDEO_FRAMES = 16


def torchvision_inputs(models: Any, name: str, size: int) -> tuple:
    """One random batch of what the model's family takes: a clip
    [1, 3, frames, size, size] for video models, two frames for optical flow
    (RAFT), else one image [1, 3, size, size] (classification, detection and
    segmentation, which take an image batch too)."""
    import torch

    def family(module: str) -> set[str]:
        try:
            return set(models.list_models(module=getattr(models, module)))
        except Exception:  # an older torchvision without the module: not that family
            return set()

    if name in family("video"):
        return (torch.randn(1, 3, VIDEO_FRAMES, size, size),)
    if name in family("optical_flow"):
        side = max(8, size // 8 * 8)  # RAFT downsamples by 8
        return (torch.randn(1, 3, side, side), torch.randn(1, 3, side, side))
    return (torch.randn(1, 3, size, size),)


def load_pt2(path: str, device: Any = None) -> LoadedModel:
    import torch

    try:
        ep = torch.export.load(path)
        if device is not None and getattr(device, "type", "cpu") != "cpu":
            # an exported module cannot be .to()'d; torch moves the program instead
            from torch.export.passes import move_to_device_pass

            ep = move_to_device_pass(ep, device)
        module = ep.module()
    except Exception as e:
        import zipfile

        if not zipfile.is_zipfile(path):
            raise ProbeError(
                "model_import_error",
                f"{path} is not a .pt2 archive: it is not a zip file (truncated, or not written by "
                f"torch.export.save or aoti_compile_and_package). Write it again.",
                tb=format_exc(e),
            ) from None
        raise ProbeError(
            "model_import_error",
            f"torch.export.load('{path}') failed: {exc_summary(e)}. The archive must come from "
            f"torch.export.save with a compatible torch.",
            tb=format_exc(e),
        ) from None
    example = getattr(ep, "example_inputs", None)
    if not example:
        raise ProbeError(
            "missing_get_inputs",
            f"{path} carries no example inputs. Save it with torch.export.save on a torch that keeps "
            f"them, or write a .py spec whose get_model() loads the archive.",
        )
    args, kwargs = example
    if kwargs:
        raise ProbeError(
            "missing_get_inputs",
            f"{path} was exported with keyword inputs ({', '.join(kwargs)}); the probe passes positional "
            f"inputs only. Wrap it in a .py spec.",
        )
    return LoadedModel(path, os.path.basename(path), None, module, tuple(args), None)


def aoti_package(spec: str) -> str | None:
    """The absolute path when the spec is an AOTInductor package (not a
    torch.export archive), else None."""
    if not spec.endswith(".pt2"):
        return None
    from .aoti import is_aoti_package

    path = os.path.abspath(os.path.expanduser(spec))
    return path if os.path.isfile(path) and is_aoti_package(path) else None


def precheck(spec: str) -> None:
    """What can be said about the spec without torch: a missing file or a
    syntax error is reported at once, not after seconds of importing torch."""
    if spec.startswith("torchvision:"):
        return
    path = os.path.abspath(os.path.expanduser(spec))
    if not os.path.isfile(path):
        hint = " (it is a folder)" if os.path.isdir(path) else ""
        raise ProbeError(
            "model_not_found",
            f"Model file not found: {path}{hint}. Give the path of a .py file that defines get_model() "
            f"and get_inputs(), torchvision:NAME, or a .pt2 archive.",
        )
    if not path.endswith(".py"):
        return
    try:
        with open(path, "rb") as f:
            source = f.read()
        compile(source, path, "exec", dont_inherit=True)
    except SyntaxError as e:
        raise _syntax_error(e, path) from None
    except (OSError, ValueError) as e:
        raise ProbeError(
            "model_import_error", f"{path} cannot be read: {exc_summary(e)}."
        ) from None


# The seed every probe builds its model and inputs under (docs/measuring.md).
MODEL_SEED = 0


def seed_all(seed: int = MODEL_SEED) -> None:
    """Seeds Python's, torch's and NumPy's generators, so that every probe of
    a comparison builds the same random weights and inputs: a model whose work
    depends on the values (a detector's NMS over the boxes that pass its score
    threshold) would otherwise do different work in each setting. A model
    file that seeds itself reseeds over this."""
    import random

    import torch

    random.seed(seed)
    torch.manual_seed(seed)
    try:
        import numpy
    except ImportError:  # torch runs without NumPy: nothing more to seed
        return
    numpy.random.seed(seed)


def load(
    spec: str, classifier: FrameClassifier, device: Any = None, batch_size: int | None = None
) -> LoadedModel:
    """`batch_size`: a batch-size walk's first size, for a get_inputs(batch_size)
    without a default; None outside a walk. Seeds first (seed_all)."""
    seed_all()
    if spec.startswith("torchvision:"):
        return load_torchvision(spec.split(":", 1)[1].strip())
    path = os.path.abspath(os.path.expanduser(spec))
    if not os.path.isfile(path):
        hint = " (it is a folder)" if os.path.isdir(path) else ""
        raise ProbeError(
            "model_not_found",
            f"Model file not found: {path}{hint}. Give the path of a .py file that defines get_model() "
            f"and get_inputs(), torchvision:NAME, or a .pt2 archive.",
        )
    if path.endswith(".pt2"):
        return load_pt2(path, device)
    return load_py(path, classifier, batch_size)


# Modules that compute differently in training mode, by their base classes.
_MODE_DEPENDENT = (
    ("torch.nn.modules.dropout", "_DropoutNd"),
    ("torch.nn.modules.batchnorm", "_NormBase"),  # batch and instance norm
)
# Kinds named in the warning.
MAX_MODE_KINDS = 4


def mode_dependent_kinds(model: Any) -> list[str]:
    """The class names of `model`'s modules in training mode that act
    otherwise in eval mode (Dropout, BatchNorm2d...), first seen first; none
    where the model is not an nn.Module or is in eval mode."""
    import importlib

    import torch

    if not isinstance(model, torch.nn.Module):
        return []
    bases = []
    for module_name, class_name in _MODE_DEPENDENT:
        base = getattr(importlib.import_module(module_name), class_name, None)
        if base is not None:
            bases.append(base)
    kinds: list[str] = []
    for module in model.modules():
        name = type(module).__name__
        # A dropout of p=0 (many Hugging Face configs) drops nothing in either mode.
        inert = getattr(module, "p", None) == 0
        if module.training and isinstance(module, tuple(bases)) and not inert and name not in kinds:
            kinds.append(name)
    return kinds


def move_to(value: Any, device: Any) -> Any:
    import torch

    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(move_to(v, device) for v in value)
    if isinstance(value, list):
        return [move_to(v, device) for v in value]
    if isinstance(value, dict):
        return {k: move_to(v, device) for k, v in value.items()}
    return value


def describe_inputs(inputs: tuple, names: tuple[str, ...] | None = None) -> list[dict]:
    import torch

    out = []
    for i, v in enumerate(inputs):
        if isinstance(v, torch.Tensor):
            item = {"shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", "")}
        else:
            item = {"shape": None, "dtype": type(v).__name__}
        if names is not None and i < len(names):
            item["name"] = names[i]
        out.append(item)
    return out


def shapes_text(inputs: tuple) -> str:
    import torch

    parts = []
    for v in inputs:
        if isinstance(v, torch.Tensor):
            parts.append("[" + ", ".join(str(d) for d in v.shape) + "]")
        else:
            parts.append(type(v).__name__)
    return ", ".join(parts)
