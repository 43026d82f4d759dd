"""compilescope-cli warmstart: a setting's cold start three ways (fresh compile,
warm Inductor cache, portable cache artifacts) on the gallery MLP on CPU."""

import os

from conftest import GALLERY


def test_mlp_cold_starts_fresh_warm_and_from_artifacts(run_cli, tmp_path):
    html = tmp_path / "warmstart.html"
    result = run_cli(
        "warmstart",
        GALLERY / "mlp.py",
        "--settings",
        "default",
        "--warmup",
        "3",
        "--iters",
        "10",
        "--threads",
        "1",
        "--html",
        html,
        json_name="warmstart.json",
    )
    assert result.returncode == 0, result.stderr
    runs = result.report["runs"]
    assert [r["label"] for r in runs] == ["default", "default warm", "default artifacts"]
    assert [r["setting"]["start"] for r in runs] == ["fresh", "warm_cache", "cache_artifacts"]
    for run in runs:
        assert run["status"] == "ok", run["error"]
        assert run["compile_phases"]["first_call_ns"] > 0
        assert len(run["latency"]["samples_ns"]) == 10

    # The warm and artifacts starts hit the entries their priming runs filled:
    # no Inductor code generation, no C++ build phase. A priming run compiled
    # without the kernel profile's Inductor option missed them all.
    for run in runs[1:]:
        phases = {p["name"]: p["ns"] for p in run["compile_phases"]["phases"]}
        assert phases["inductor_codegen"] == 0 and phases["cpp_triton_compile"] == 0, phases

    # The artifacts run loaded what its priming run saved, before its first
    # compile, and that load is part of its first call.
    artifacts = runs[2]
    loaded = artifacts["cache_artifacts"]
    assert loaded["action"] == "load" and loaded["bytes"] > 0 and loaded["ns"] > 0
    phases = artifacts["compile_phases"]["phases"]
    assert phases[0]["name"] == "load_cache_artifacts"
    assert abs(phases[0]["ns"] - loaded["ns"]) <= 1  # through float seconds
    first = next(i for i in artifacts["latency"]["iterations"] if i["first_call"])
    assert artifacts["compile_phases"]["first_call_ns"] == first["wall_ns"] + loaded["ns"]
    # The runner removed the file its priming run saved.
    assert not os.path.exists(loaded["path"])
    assert not os.path.exists(os.path.dirname(loaded["path"]))
    # Each run's log says how it started.
    assert any("compile cache primed" in line["message"] for line in runs[1]["logs"])
    assert any("portable cache artifacts" in line["message"] for line in runs[2]["logs"])

    # The table on stdout, its section in the HTML.
    assert "warm cache" in result.stdout and "artifacts" in result.stdout
    page = html.read_text()
    assert 'id="warm-starts"' in page
