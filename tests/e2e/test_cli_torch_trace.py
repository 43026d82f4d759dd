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
