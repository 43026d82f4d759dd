"""Re-record the probe event streams that core's C++ tests replay
(tests/fixtures/streams/*.jsonl). Not a test: run it by hand when the
protocol changes:

    .venv/bin/python tests/probe/record_streams.py [NAME ...]
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tests" / "fixtures" / "streams"
MODELS = ROOT / "resources" / "models"
FIXTURES = ROOT / "tests" / "probe" / "models"


def lesson(model: Path) -> list:
    """A short aot_eager run: what the advice tests replay."""
    return [model, "--backend", "aot_eager", "--warmup", "2", "--iters", "3"]


def recompiling(model: Path) -> list:
    """An aot_eager run with calls enough to reach the recompile limit."""
    return [model, "--backend", "aot_eager", "--warmup", "2", "--iters", "10"]


def as_written(model: Path) -> list:
    """A short run of the model file's own torch.compile calls, kept."""
    return [model, "--mode", "as-written", "--warmup", "1", "--iters", "2", "--no-code"]


def outputs_checked(model: Path) -> list:
    """A short default/aot_eager run: its outputs check is what is replayed."""
    return [
        model,
        "--mode",
        "default",
        "--backend",
        "aot_eager",
        "--no-code",
        "--warmup",
        "1",
        "--iters",
        "3",
    ]


STREAMS = {
    "mlp_eager_cpu": [MODELS / "mlp.py", "--mode", "eager", "--warmup", "10", "--iters", "50"],
    "mlp_default_cpu": [MODELS / "mlp.py", "--mode", "default", "--warmup", "10", "--iters", "50"],
    # Eager with a profiled window: the eager time by module (fc1, fc2, head).
    "mlp_eager_profile_cpu": [
        MODELS / "mlp.py",
        "--mode",
        "eager",
        "--warmup",
        "2",
        "--iters",
        "5",
        "--profile-calls",
        "5",
    ],
    "print_break_aot_eager_cpu": [
        MODELS / "print_break.py",
        "--backend",
        "aot_eager",
        "--warmup",
        "5",
        "--iters",
        "30",
    ],
    "variable_length_sweep": [
        MODELS / "variable_length.py",
        "--backend",
        "aot_eager",
        "--dynamic",
        "false",
        "--sweep",
        "--warmup",
        "5",
        "--iters",
        "30",
    ],
    # A model file that compiles itself three ways, each undone on load (own_compiles.py).
    "compiles_itself_eager_cpu": [
        FIXTURES / "compiles_itself.py",
        "--mode",
        "eager",
        "--warmup",
        "2",
        "--iters",
        "5",
        "--profile-calls",
        "0",
    ],
    "model_raised_cpu": [
        FIXTURES / "raises_in_forward.py",
        "--backend",
        "aot_eager",
        "--warmup",
        "2",
        "--iters",
        "5",
    ],
    # A break inside library code (json, then torch's polyfill), reached from forward: the GUI's break views.
    "library_break_aot_eager_cpu": [
        FIXTURES / "library_break.py",
        "--backend",
        "aot_eager",
        "--warmup",
        "2",
        "--iters",
        "5",
    ],
    # The advice rules' tests (tests/core/test_advice_*.cpp): one lesson model each.
    **{
        f"advice_{m}": lesson(MODELS / f"{m}.py")
        for m in (
            "print_break",
            "item_break",
            "data_dependent_branch",
            "numpy_break",
            "untraceable_call",
            "clean",
        )
    },
    "advice_print_fullgraph": [
        MODELS / "print_break.py",
        "--backend",
        "aot_eager",
        "--fullgraph",
        "--warmup",
        "2",
        "--iters",
        "3",
    ],
    "advice_variable_length_static_sweep": [
        MODELS / "variable_length.py",
        "--backend",
        "aot_eager",
        "--dynamic",
        "false",
        "--sweep",
        "--warmup",
        "2",
        "--iters",
        "3",
    ],
    # A break inside an nn.Sequential: the whole forward runs eagerly but the
    # breaking block (kernel.uncompiled_modules); compiled by Inductor, profiled.
    "advice_sequential_break": [
        MODELS / "sequential_break.py",
        "--warmup",
        "3",
        "--iters",
        "10",
        "--profile-calls",
        "10",
        "--no-code",
    ],
    # An int attribute counting calls: recompile.value up to the limit.
    "advice_value_recompiles": recompiling(FIXTURES / "counting_attribute.py"),
    # A guard that fails every 20 calls: recompiles at warmup call 20 and at
    # measured calls 19, 39 and 59, each with its call_index.
    "recompiles_mid_measure": [
        FIXTURES / "periodic_guard.py",
        "--backend",
        "eager",
        "--warmup",
        "21",
        "--iters",
        "60",
    ],
    # nn.LSTM, which Dynamo leaves out of the graph: graph_break.rnn.
    "advice_lstm_break": lesson(FIXTURES / "lstm_tagger.py"),
    # Two residual blocks of the same ops on the same shapes: the regional-compilation block.
    "clean_aot_eager_cpu": lesson(MODELS / "clean.py"),
    # Two positional inputs whose length changes together: recompile.shape marks both.
    "advice_masked_tokens_static_sweep": [
        FIXTURES / "masked_tokens.py",
        "--backend",
        "aot_eager",
        "--dynamic",
        "false",
        "--sweep",
        "--warmup",
        "2",
        "--iters",
        "3",
    ],
    # An int argument the sweep changes: one recompile, then a symbol (recompile.value).
    "advice_step_argument_sweep": [*lesson(FIXTURES / "step_argument.py"), "--sweep"],
    "advice_variable_length_auto_sweep": [*lesson(MODELS / "variable_length.py"), "--sweep"],
    "advice_recompile_limit": [
        FIXTURES / "many_lengths.py",
        "--backend",
        "eager",
        "--dynamic",
        "false",
        "--sweep",
        "--warmup",
        "1",
        "--iters",
        "2",
    ],
    # two breaks in forward: the second lies in Dynamo's resume function.
    "advice_two_breaks": [
        FIXTURES / "two_breaks.py",
        "--backend",
        "aot_eager",
        "--warmup",
        "2",
        "--iters",
        "5",
    ],
    # The LSTM tagger on other lengths: forward and the frame after its break
    # recompile at the same call, and the recompiled forward meets the break again.
    "advice_lstm_lengths_auto_sweep": [*lesson(FIXTURES / "lstm_tagger.py"), "--sweep"],
    # A dict cache the first call fills: the second call recompiles (recompile.dict_key).
    "advice_lazy_cache": lesson(FIXTURES / "lazy_cache.py"),
    # A compile that fails in Dynamo under every backend, and one that fails
    # in Inductor only: failure.compile by the stage the probe narrowed it to.
    "advice_dynamo_fails": [FIXTURES / "traced_numpy_fails.py", "--warmup", "1", "--iters", "1"],
    "advice_inductor_fails": [FIXTURES / "inductor_fails.py", "--warmup", "1", "--iters", "1"],
    # The backend fails on a pad by tensor amounts: one graph_break.backend
    # at the pad's line, not torch's "WON'T CONVERT" log beside it.
    "advice_padded_by_tensors": lesson(FIXTURES / "padded_by_tensors.py"),
    # A hook that prints: graph_break.print, told as the hook of model[0].
    "advice_printing_hook": lesson(FIXTURES / "printing_hook.py"),
    # The same under Inductor: the profiled window tells the print's line apart.
    "advice_printing_hook_inductor": [
        FIXTURES / "printing_hook.py",
        "--warmup",
        "2",
        "--iters",
        "3",
        "--profile-calls",
        "5",
    ],
    # A hook appending to a list: recompile.growing_list, then the limit.
    "advice_growing_list": recompiling(FIXTURES / "growing_list.py"),
    # time.perf_counter() in forward: two breaks, and a recompile per call.
    "advice_clock_in_forward": recompiling(FIXTURES / "clock_in_forward.py"),
    # open(...).write(...) in forward: graph_break.file, and the file object
    # carried across the break recompiles the rest on every call.
    "advice_file_writer": recompiling(FIXTURES / "file_writer.py"),
    # A module global forward counts up: recompile.value on STEP.
    "advice_global_step": recompiling(FIXTURES / "global_step.py"),
    # A torch.jit.trace'd block inside the model: graph_break.torchscript.
    "advice_traced_submodule": lesson(FIXTURES / "traced_submodule.py"),
    # quantize_dynamic's Linear layers: graph_break.quantized at each call.
    "advice_quantized_linear": lesson(FIXTURES / "quantized_linear.py"),
    # requires_grad_() and torch.autograd.grad in forward: graph_break.autograd.
    "advice_forces_from_energy": lesson(FIXTURES / "forces_from_energy.py"),
    # Noise drawn from the module's own torch.Generator: graph_break.generator.
    "advice_generator_noise": lesson(FIXTURES / "generator_noise.py"),
    # .item() in a debug log line: graph_break.item on a message.
    "advice_logged_item": lesson(FIXTURES / "logged_item.py"),
    # Lengths read with .tolist() to slice each row: graph_break.item.
    "advice_tolist_lengths": lesson(FIXTURES / "tolist_lengths.py"),
    # A model that appends to a cache it is given: measure.inputs_changed.
    "advice_growing_input": [
        FIXTURES / "growing_input.py",
        "--mode",
        "eager",
        "--warmup",
        "2",
        "--iters",
        "3",
    ],
    # nn.TransformerEncoder with a padding mask: eager's fast path returns the
    # padded rows as zeros, the compiled graph computes them (outputs.masked_rows).
    "padded_encoder_aot_eager_cpu": outputs_checked(FIXTURES / "padded_encoder.py"),
    # The same encoder with a mean over every position: the difference
    # reaches every output, and eager with its fast path off agrees with the
    # compiled one (outputs.fast_path).
    "pooled_encoder_aot_eager_cpu": outputs_checked(FIXTURES / "pooled_encoder.py"),
    # A count kept at a threshold one of eager's scores sets: the compiled
    # sum's last bit drops one (eager 38, compiled 37), and float64 keeps 37.
    "threshold_count_default_cpu": [
        FIXTURES / "threshold_count.py",
        "--mode",
        "default",
        "--no-code",
        "--warmup",
        "2",
        "--iters",
        "5",
    ],
    # bfloat16 steps eager rounds away and Inductor's fused kernel keeps:
    # outputs_check differs, with float64 siding with the compiled outputs.
    "bf16_steps_default_cpu": [
        FIXTURES / "bf16_steps.py",
        "--mode",
        "default",
        "--no-code",
        "--warmup",
        "3",
        "--iters",
        "10",
    ],
    # nonzero inside a loop of a method forward calls: the method's frame is skipped.
    "advice_loop_break": lesson(FIXTURES / "loop_break.py"),
    # Mode as-written compiling a submodule's library-wrapped forward alone.
    "advice_wrapped_submodule_compiled": as_written(FIXTURES / "wrapped_submodule_compiled.py"),
    # Mode as-written: a library-wrapped forward called with two keyword arguments, then one.
    "advice_keyword_steps": as_written(FIXTURES / "keyword_steps.py"),
    # forward wrapped by a "library" decorator (site-packages), input_ids changing length.
    "advice_library_wrapper": [
        FIXTURES / "wrapped_forward.py",
        "--backend",
        "eager",
        "--dynamic",
        "false",
        "--sweep",
        "--warmup",
        "1",
        "--iters",
        "2",
    ],
}


def record(name: str) -> Path:
    model, *args = STREAMS[name]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "probe"))
    cmd = [sys.executable, "-m", "compilescope_probe", "--model", str(model), *map(str, args)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=600)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / f"{name}.jsonl"
    path.write_text(proc.stdout)
    size = path.stat().st_size
    print(
        f"{path.relative_to(ROOT)}: exit {proc.returncode}, {len(proc.stdout.splitlines())} events, {size // 1024} KiB"
    )
    if size > 300 * 1024:
        print(f"  warning: {name} is over 300 KiB; use fewer iterations", file=sys.stderr)
    return path


if __name__ == "__main__":
    for n in sys.argv[1:] or list(STREAMS):
        record(n)
