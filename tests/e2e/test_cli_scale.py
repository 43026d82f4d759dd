"""compilescope-cli scale: batch-size walks of gallery models on CPU."""

import json
import subprocess

from conftest import GALLERY


def fastest_throughput(point):
    return point["batch_size"] * 1e9 / min(point["latency_ns"])


def test_mlp_and_convnet_walk_three_sizes_in_eager_and_default(run_cli, tmp_path):
    html = tmp_path / "scale.html"
    for model in ("mlp.py", "convnet.py"):
        result = run_cli(
            "scale",
            GALLERY / model,
            "--batch-sizes",
            "1,4,16",
            "--settings",
            "eager,default",
            "--warmup",
            "2",
            "--iters",
            "8",
            # One thread: an intra-op pool on a loaded 2-core machine stalls
            # large batches far more than small ones.
            "--threads",
            "1",
            "--html",
            html,
            json_name=f"{model}.json",
        )
        assert result.returncode == 0, result.stderr
        report = result.report
        assert [r["label"] for r in report["runs"]] == ["eager", "default"]
        for run in report["runs"]:
            walk = run["scaling"]
            assert walk["batch_source"] == "dim0"
            assert [p["batch_size"] for p in walk["points"]] == [1, 4, 16]
            assert walk["stop"]["reason"] == "done"
            for point in walk["points"]:
                assert len(point["latency_ns"]) == 8
                assert min(point["latency_ns"]) > 0
                assert point["memory_kind"] == "host_rss"
                assert point["peak_memory_bytes"] > 0
        # More samples per second at 16 than at 1 for the faster setting (the
        # conv net in eager is compute-bound on one thread: flat, as measured).
        # The fastest call is what a loaded machine disturbs least.
        best = {
            size: max(fastest_throughput(r["scaling"]["points"][i]) for r in report["runs"])
            for i, size in enumerate((1, 4, 16))
        }
        assert best[16] > best[1], (model, best)
        # The text table on stdout, the section in the HTML.
        assert "samples/s" in result.stdout
        assert 'id="scaling"' in html.read_text()


def test_inputs_with_no_common_batch_dimension_are_refused(run_cli, tmp_path):
    model = tmp_path / "two_sizes.py"
    model.write_text(
        "import torch\n\n"
        "class M(torch.nn.Module):\n"
        "    def forward(self, a, b):\n"
        "        return a.sum() + b.sum()\n\n"
        "def get_model():\n    return M()\n\n"
        "def get_inputs():\n    return (torch.randn(2, 3), torch.randn(5, 3))\n"
    )
    result = run_cli(
        "scale",
        model,
        "--batch-sizes",
        "1,4",
        "--settings",
        "eager",
        "--warmup",
        "1",
        "--iters",
        "2",
    )
    assert result.returncode != 0
    run = result.report["runs"][0]
    assert run["error"]["kind"] == "no_batch_dimension"
    assert "get_inputs(batch_size)" in run["error"]["message"]
    assert not run.get("scaling") or not run["scaling"]["points"]


def test_bad_batch_sizes_are_a_usage_error(cli, tmp_path):
    proc = subprocess.run(
        [str(cli), "scale", str(GALLERY / "mlp.py"), "--batch-sizes", "4,2"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1
    assert "batch sizes go up" in proc.stderr
    proc = subprocess.run(
        [str(cli), "scale", str(GALLERY / "mlp.py")], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "--batch-sizes" in proc.stderr


def test_the_scaling_block_survives_the_html_command(run_cli, cli, tmp_path):
    result = run_cli(
        "scale",
        GALLERY / "mlp.py",
        "--batch-sizes",
        "2,8",
        "--settings",
        "eager",
        "--warmup",
        "1",
        "--iters",
        "4",
    )
    assert result.returncode == 0, result.stderr
    out = tmp_path / "again.html"
    proc = subprocess.run(
        [str(cli), "html", str(result.json_path), str(out)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert "Throughput (samples/s" in out.read_text()
    assert (
        json.loads(result.json_path.read_text())["runs"][0]["scaling"]["points"][1]["batch_size"]
        == 8
    )
