"""compilescope-cli --torch-trace DIR: each setting's probe has torch write its
own structured trace into DIR (the file tlparse reads)."""

from conftest import GALLERY


def test_each_compiling_setting_writes_a_trace(run_cli, tmp_path):
    traces = tmp_path / "traces"
    result = run_cli(
        "run",
        GALLERY / "mlp.py",
        "--settings",
        "eager,default/aot_eager",
        "--device",
        "cpu",
        "--warmup",
        "1",
        "--iters",
        "3",
        "--torch-trace",
        traces,
    )
    assert result.returncode == 0, result.stderr
    eager, compiled = result.report["runs"]
    assert eager["status"] == "ok" and compiled["status"] == "ok", result.stderr
    # eager compiles nothing, so torch writes no file for it.
    (log,) = traces.glob("dedicated_log_torch_trace_*.log")
    assert '{"dynamo_start":' in log.read_text()
    messages = [line["message"] for line in compiled["logs"]]
    assert f"torch's trace (TORCH_TRACE): {log}" in messages, messages


BREAK_IN_FORWARD = """
import torch
from torch import nn


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x):
        y = self.fc(x)
        print("between the graphs")
        return y + 1


def get_model():
    return Model()


def get_inputs():
    return (torch.randn(2, 4),)
"""


def test_an_imported_break_has_the_live_breaks_frames(run_cli, tmp_path):
    # torch's traceback in the log starts at the program's entry (here the
    # probe's harness) and passes through nn.Module's call machinery; the
    # import starts it at the compiled frame, as the live probe does, so the
    # user frame and the library rules read the same frames.
    model = tmp_path / "break_in_forward.py"
    model.write_text(BREAK_IN_FORWARD)
    traces = tmp_path / "traces"
    live = run_cli(
        "run",
        model,
        "--settings",
        "default/aot_eager",
        "--warmup",
        "1",
        "--iters",
        "3",
        "--torch-trace",
        traces,
    )
    assert live.returncode == 0, live.stderr
    (log,) = traces.glob("dedicated_log_torch_trace_*.log")
    imported = run_cli("import", log, json_name="imported.json")
    assert imported.returncode == 0, imported.stderr

    def frames(report):
        return [
            ([(f["file"], f["line"], f["function"]) for f in b["frames"]], b["user_frame"])
            for b in report["runs"][0]["graph_breaks"]
        ]

    assert frames(live.report) == [([(str(model), 13, "forward")], 0)]
    assert frames(imported.report) == frames(live.report)
