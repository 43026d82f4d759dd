"""compilescope-cli: each compiled setting's outputs against eager's
(docs/outputs.md), from the probe's check to the finding, the comparison's
column and the HTML report."""

from conftest import ROOT

MODELS = ROOT / "tests" / "probe" / "models"


def test_seeded_dropout_differs_from_eager_and_the_finding_names_the_draw(run_cli, tmp_path):
    html = tmp_path / "report.html"
    result = run_cli(
        "compare",
        MODELS / "seeded_dropout.py",
        "--settings",
        "eager,default",
        "--warmup",
        "2",
        "--iters",
        "5",
        "--html",
        html,
    )
    assert result.returncode == 0, result.stderr
    report = result.report
    runs = {r["label"]: r for r in report["runs"]}
    check = runs["default"]["outputs_check"]
    assert check["status"] == "differ" and check["float64"]["compiled_error"] > 0.1
    rows = {r["label"]: r for r in report["comparison"]["rows"]}
    assert rows["default"]["outputs"].startswith("differ ") and rows["default"]["outputs_differ"]
    assert rows["eager"]["outputs"] is None
    (finding,) = [f for f in report["advice"]["findings"] if f["rule"] == "outputs.differ"]
    assert finding["severity"] == "warning" and finding["setting"] == "default"
    assert "fallback_random = True" in finding["remedy"]
    assert any(
        "torch.nn.functional.dropout at seeded_dropout.py:" in e for e in finding["evidence"]
    )
    # The CLI's table says it under the row; the HTML has the column and the finding.
    assert "    outputs: differ " in result.stdout
    page = html.read_text()
    assert ">outputs<" in page and rows["default"]["outputs"] in page
    assert "fallback_random" in page
