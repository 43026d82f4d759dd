"""compilescope-cli's advice on the gallery, end to end on CPU: the right rule
at the right file:line for each lesson model, and nothing on the clean one.
aot_eager keeps the runs fast: breaks and recompiles are Dynamo's, not Inductor's."""

from conftest import GALLERY

# Rules that judge the machine the run happened on, not the model: a busy CI
# runner disturbs the timing, and its environment may set torch variables.
MACHINE_RULES = ("measure.", "env.inherited")


def all_findings(result):
    assert result.returncode == 0, result.stderr
    return result.report["advice"]["findings"]


def findings(result):
    """The findings about the model."""
    return [f for f in all_findings(result) if not f["rule"].startswith(MACHINE_RULES)]


def run_model(run_cli, model, *extra, settings="default"):
    return run_cli(
        "run",
        GALLERY / model,
        "--settings",
        settings,
        "--backend",
        "aot_eager",
        "--device",
        "cpu",
        "--warmup",
        "2",
        "--iters",
        "5",
        *extra,
    )


def test_print_break_advice(run_cli):
    result = run_model(run_cli, "print_break.py")
    found = findings(result)
    assert [f["rule"] for f in found] == ["graph_break.print"]
    f = found[0]
    assert f["file"].endswith("resources/models/print_break.py") and f["line"] == 21
    assert f["severity"] == "warning" and f["graphs_split"] == 2 and f["tab"] == "Breaks"
    assert "print(" in f["code"]
    assert "reorderable_logging_functions" in f["remedy"]
    # The CLI prints the same finding at the end of the run.
    assert f"advice: {len(result.report['advice']['findings'])} finding(s)" in result.stdout
    assert "print() in forward breaks the graph" in result.stdout
    assert "print_break.py:21" in result.stdout


def test_item_break_advice(run_cli):
    found = findings(run_model(run_cli, "item_break.py"))
    assert [f["rule"] for f in found] == ["graph_break.item"]
    assert found[0]["file"].endswith("item_break.py") and found[0]["line"] == 21
    assert "capture_scalar_outputs" in found[0]["remedy"]


def test_static_sweep_recompiles_advice(run_cli):
    found = findings(run_model(run_cli, "variable_length.py", "--sweep", "--dynamic", "false"))
    assert [f["rule"] for f in found] == ["recompile.shape"]
    f = found[0]
    assert f["file"].endswith("variable_length.py") and f["line"] == 30  # def forward
    assert "recompiled 5 times" in f["title"] and "dimension 1 of tokens" in f["title"]
    assert "mark_dynamic(tokens, 1" in f["remedy"] and "dynamic=True" in f["remedy"]
    assert any("16, 32, 48, 64, 96 and 128" in e for e in f["evidence"])


def test_clean_model_gets_no_advice(run_cli):
    result = run_model(run_cli, "clean.py", settings="eager,default")
    assert findings(result) == []
    assert f"advice: {len(result.report['advice']['findings'])} finding(s)" in result.stdout
    # Five calls make a measure phase too short for the kernel's CPU ticks:
    # one line says so, without figures that mean nothing.
    assert "the rest of the machine: not judged (a measure phase of " in result.stderr
    assert "other processes kept" not in result.stderr


def test_expected_calls_is_kept_in_the_report(run_cli):
    result = run_model(run_cli, "clean.py", "--expected-calls", "50", "--memory-fraction", "0.5")
    assert result.report["advice"]["options"] == {
        "expected_calls": 50,
        "memory_fraction": 0.5,
        "long_compile_s": 60.0,
    }


def test_bad_advice_options_are_bad_arguments(run_cli):
    result = run_cli("run", GALLERY / "clean.py", "--expected-calls", "lots")
    assert result.returncode == 1
    assert "--expected-calls" in result.stderr


def test_compile_turned_off_in_the_shell_is_named(run_cli):
    # A variable left in the user's shell turns torch.compile off: the doctor
    # names it instead of calling the model too small to gain. Inductor, since
    # nothing compiles, and only Inductor settings are judged for speed.
    result = run_cli(
        "compare",
        GALLERY / "mlp.py",
        "--settings",
        "eager,default",
        "--device",
        "cpu",
        "--warmup",
        "2",
        "--iters",
        "10",
        "--no-sweep",
        prefix=("env", "TORCH_COMPILE_DISABLE=1", "TORCH_LOGS=+dynamo"),
    )
    found = all_findings(result)
    rules = [f["rule"] for f in found]
    assert "perf.no_gain" not in rules, rules
    disabled = [f for f in found if f["rule"] == "env.compile_disabled"]
    assert len(disabled) == 1 and disabled[0]["severity"] == "critical", found
    assert disabled[0]["setting"] == "default"
    assert "TORCH_COMPILE_DISABLE=1 turned torch.compile off" in disabled[0]["title"]
    listed = [f for f in found if f["rule"] == "env.inherited"]
    assert len(listed) == 1 and "TORCH_LOGS=+dynamo" in listed[0]["evidence"][0], found
    for run in result.report["runs"]:
        assert run["probe"]["torch_env"]["TORCH_COMPILE_DISABLE"] == "1"
    assert "default compiled nothing" in result.stdout


def test_a_model_file_that_compiles_itself_is_measured_both_ways(run_cli):
    """Every setting but as-written undoes the file's own torch.compile calls;
    as-written keeps them, each compiled under its own backend."""
    model = GALLERY.parents[1] / "tests" / "probe" / "models" / "compiles_parts.py"
    result = run_cli(
        "compare", model, "--settings", "eager,as-written,default", "--backend", "aot_eager",
        "--device", "cpu", "--warmup", "2", "--iters", "5",
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    report = result.report
    assert [c["how"] for c in report["model"]["own_compiles"]] == ["Module.compile", "decorator"]
    runs = {r["label"]: r for r in report["runs"]}
    assert runs["as-written"]["status"] == "ok"
    assert len(runs["as-written"]["graphs"]) == 2, "each call's graphs, captured"
    own = [f for f in findings(result) if f["rule"] == "compile.own_calls"]
    assert len(own) == 1
    assert "only setting as-written ran those calls" in own[0]["title"]
    assert own[0]["evidence"][0] == 'model[1].compile(backend="aot_eager", dynamic=False)'
