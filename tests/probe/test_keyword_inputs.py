"""get_inputs() may return a dict of keyword arguments, as Hugging Face models
are called (`model(**inputs)`): the model is compiled, measured and walked
as with positional inputs, and its graphs point at the model's own lines."""

from __future__ import annotations

import textwrap

from conftest import assert_well_formed, run_probe

QUICK = ("--warmup", "2", "--iters", "5", "--threads", "1", "--device", "cpu")

MODEL = '''
import torch


class Keyworded(torch.nn.Module):
    """Keyword-only arguments, as a Hugging Face forward takes them."""

    def __init__(self):
        super().__init__()
        self.embed = torch.nn.Embedding(50, 16)
        self.proj = torch.nn.Linear(16, 4)

    def forward(self, *, input_ids, attention_mask):
        x = self.embed(input_ids) * attention_mask.unsqueeze(-1)
        return self.proj(x).sum(dim=1)


def get_model():
    torch.manual_seed(0)
    return Keyworded()


def get_inputs(batch_size=2):
    ids = torch.randint(0, 50, (batch_size, 8))
    return {"input_ids": ids, "attention_mask": torch.ones(batch_size, 8)}
'''


def write(tmp_path, text=MODEL, name="keyworded.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path


def test_a_dict_of_inputs_is_passed_by_name_and_compiled(tmp_path):
    path = write(tmp_path)
    run = run_probe(path, "--mode", "default", "--backend", "aot_eager", *QUICK)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    model = run.one("model")
    assert [i.get("name") for i in model["inputs"]] == ["input_ids", "attention_mask"]
    assert model["inputs"][0]["shape"] == [2, 8] and model["inputs"][0]["dtype"] == "int64"
    assert model["name"] == "keyworded (Keyworded)"  # the user's model, not the wrapper
    assert model["parameters"] == 50 * 16 + 16 * 4 + 4
    assert len(run.calls()) == 2 + 5
    graphs = run.of("graph")
    assert graphs, run.describe()
    lines = {n["line"] for g in graphs for n in g["nodes"] if n.get("file") == str(path)}
    source = path.read_text().splitlines()
    assert any("self.embed(input_ids)" in source[line - 1] for line in lines), lines
    for g in graphs:
        assert all("loader.py" not in (n.get("file") or "") for n in g["nodes"])
    # Modules as the user's model names them, not under the wrapper's `model`.
    modules = {n.get("module") for g in graphs for n in g["nodes"]}
    assert {"embed", "proj"} <= modules, modules
    assert not any(m and m.startswith("model") for m in modules), modules


def test_the_batch_walk_calls_get_inputs_with_the_size_and_keeps_the_names(tmp_path):
    path = write(tmp_path)
    run = run_probe(path, "--mode", "eager", "--batch-sizes", "1,4", *QUICK)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    assert run.one("scale_plan")["batch_source"] == "get_inputs(batch_size)"
    assert [p["batch_size"] for p in run.of("scale_point")] == [1, 4]


def test_keys_that_are_not_argument_names_are_a_clear_error(tmp_path):
    path = write(tmp_path, MODEL.replace('{"input_ids": ids,', "{0: ids,"))
    run = run_probe(path, "--mode", "eager", *QUICK)
    errors = run.errors()
    assert [e["kind"] for e in errors] == ["missing_get_inputs"], run.describe()
    assert "keyword arguments" in errors[0]["message"] and str(path) in errors[0]["message"]


def test_a_sweep_must_use_the_same_keys(tmp_path):
    path = write(
        tmp_path,
        MODEL
        + """

def get_input_sweep():
    return [{"input_ids": torch.zeros(2, 4, dtype=torch.long)}]
""",
    )
    run = run_probe(path, "--mode", "eager", "--sweep", *QUICK)
    errors = run.errors()
    assert [e["kind"] for e in errors] == ["missing_get_inputs"], run.describe()
    message = errors[0]["message"]
    assert "get_input_sweep()" in message and "input_ids, attention_mask" in message


def test_a_recompile_names_the_models_forward_and_the_keyword(tmp_path):
    # Dynamo compiles the probe's keyword wrapper, whose inputs are values[i]:
    # told to the user as the model's own forward and its keyword names.
    path = write(
        tmp_path,
        MODEL
        + """

def get_input_sweep():
    return [{"input_ids": torch.zeros(2, n, dtype=torch.long),
             "attention_mask": torch.ones(2, n)} for n in (4, 12)]
""",
    )
    run = run_probe(
        path, "--mode", "default", "--backend", "aot_eager", "--dynamic", "false", "--sweep", *QUICK
    )
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    recompiles = run.of("recompile")
    assert recompiles, run.describe()
    for r in recompiles:
        assert r["function"] == "Keyworded.forward" and r["file"] == str(path), r
        assert "values[" not in r["reason"] and "'input_ids'" in r["reason"], r["reason"]
        assert "library_frame" not in r, "the probe's wrapper is not library code"
    for g in run.of("graph"):
        assert g["function"] == "Keyworded.forward" and g["file"] == str(path), g
        assert "library_frame" not in g


def test_a_breaks_stack_leaves_out_the_probes_keyword_wrapper():
    # Seen with a Hugging Face BertModel called by keyword: a break deep in
    # transformers carried the wrapper's loader.py:130 as its first frame, and
    # the library advice told the user to wrap "a call at loader.py:130".
    import traceback

    from compilescope_probe import loader
    from compilescope_probe.capture import Capture
    from compilescope_probe.frames import FrameClassifier

    lib = "/x/lib/python3.11/site-packages/transformers"
    capture = Capture(
        lambda *a, **k: None,
        FrameClassifier("/home/u/model.py"),
        ("BertModel.forward", f"{lib}/modeling_bert.py", 600),
        ["input_ids"],
        wrapper_file=loader.__file__,
    )
    stack = [
        traceback.FrameSummary(loader.__file__, 130, "forward"),
        traceback.FrameSummary(f"{lib}/modeling_bert.py", 673, "forward"),
        traceback.FrameSummary(f"{lib}/integrations/sdpa_attention.py", 182, "sdpa_forward"),
    ]
    out = capture._break("Observed exception", stack, None, 0, "0/0")
    assert [f["file"] for f in out["frames"]] == [
        f"{lib}/modeling_bert.py",
        f"{lib}/integrations/sdpa_attention.py",
    ]
    assert out["user_frame"] == -1


BREAKING = """
import torch


class Keyworded(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(16, 4)

    def forward(self, *, x):
        return self.scaled(self.proj(x))

    def scaled(self, y):
        if y.sum().item() > 1e9:  # a graph break, one call below forward
            y = y * 2
        return y


def get_model():
    return Keyworded()


def get_inputs():
    return {"x": torch.randn(2, 16)}
"""


def test_a_breaks_stack_starts_at_the_models_forward_not_the_probes_wrapper(tmp_path):
    path = write(tmp_path, BREAKING, "breaking.py")
    run = run_probe(path, "--mode", "default", "--backend", "aot_eager", *QUICK)
    assert run.events[-1]["status"] == "ok", run.describe()
    breaks = run.of("graph_break")
    assert breaks, run.describe()
    for b in breaks:
        files = [f["file"] for f in b["frames"]]
        assert all("loader.py" not in f for f in files), files
        assert files[0] == str(path), files
        assert b["frames"][b["user_frame"]]["file"] == str(path)


def test_a_tokenizers_output_is_a_dict_of_inputs(tmp_path):
    """A tokenizer returns a BatchEncoding, a UserDict: a mapping, not a dict.
    Written without transformers, as a mapping of the same kind."""
    text = MODEL.replace(
        "def get_inputs(batch_size=2):",
        "from collections import UserDict\n\n\ndef get_inputs(batch_size=2):",
    ).replace(
        'return {"input_ids": ids, "attention_mask": torch.ones(batch_size, 8)}',
        "return UserDict(input_ids=ids, attention_mask=torch.ones(batch_size, 8))",
    )
    text += "\n\ndef get_input_sweep():\n    return [get_inputs(1), get_inputs(3)]\n"
    assert "UserDict(" in text
    path = write(tmp_path, text)
    run = run_probe(path, "--mode", "eager", "--batch-sizes", "1,2", *QUICK)
    assert_well_formed(run)
    assert run.events[-1]["status"] == "ok", run.describe()
    model = run.one("model")
    assert [i.get("name") for i in model["inputs"]] == ["input_ids", "attention_mask"]
    assert [p["batch_size"] for p in run.of("scale_point")] == [1, 2]
