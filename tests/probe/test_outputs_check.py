"""The outputs check: eager's outputs beside the compiled function's on the
same inputs (probe/compilescope_probe/outputs_check.py, docs/outputs.md)."""

import torch
from conftest import assert_well_formed, fixture_model, gallery, run_probes

from compilescope_probe.outputs_check import OutputsCheck, compare_leaf, fast_path_modules


def check(autocast: str = "none") -> OutputsCheck:
    return OutputsCheck(torch, torch.device("cpu"), autocast)


class Pair(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.linear = torch.nn.Linear(16, 8)

    def forward(self, x):
        y = self.linear(x)
        return {"logits": y, "label": y.argmax(-1), "extra": (y.sum(), "note")}


def test_a_leaf_within_the_tolerance_agrees_and_one_past_it_differs():
    eager = torch.linspace(-2, 2, 100)
    assert not compare_leaf("output", eager, eager + 1e-4, 1e-3)["differs"]
    past = compare_leaf("output", eager, eager + 1e-2, 1e-3)
    assert past["differs"] and past["mismatched"] == 100
    assert abs(past["relative"] - 1e-2 / 2) < 1e-6 and past["scale"] == 2.0


def test_nan_where_eager_is_finite_differs_whatever_the_tolerance_and_shared_nans_agree():
    eager = torch.tensor([1.0, float("nan"), float("inf"), 3.0])
    assert not compare_leaf("output", eager, eager.clone(), 1e-3)["differs"]
    broken = eager.clone()
    broken[0] = float("nan")
    leaf = compare_leaf("output", eager, broken, 1.0)
    assert leaf["differs"] and leaf["kind"] == "nonfinite" and leaf["nonfinite"] == 1
    flipped = eager.clone()
    flipped[2] = float("-inf")
    assert compare_leaf("output", eager, flipped, 1.0)["mismatched"] == 1


def test_integers_are_held_exactly_and_a_new_shape_differs():
    labels = torch.tensor([3, 1, 4, 1, 5])
    leaf = compare_leaf("output", labels, torch.tensor([3, 1, 4, 1, 6]), 0.5)
    assert leaf["differs"] and leaf["mismatched"] == 1
    shaped = compare_leaf("output", labels, labels[:4], 1.0)
    assert shaped["differs"] and shaped["kind"] == "shape" and "[5]" in shaped["detail"]


def test_a_function_that_computes_otherwise_is_caught_leaf_by_leaf_with_its_path():
    model = Pair().eval()
    x = torch.randn(4, 16)

    def shifted(x):
        out = model(x)
        out["logits"] = out["logits"] + 0.5
        return out

    with torch.no_grad():
        fields = check().run(shifted, model, (x,))
    assert fields["status"] == "differ" and fields["differing"] == 1
    worst = fields["worst"][0]
    assert worst["path"] == "output['logits']" and worst["mismatched"] == 32
    # the string leaf is not compared, the rest agree
    assert fields["skipped"] == 1 and fields["leaves"] == 4
    # float64 says which side is nearer the exact result: eager's here
    assert fields["float64"]["eager_error"] < 1e-6 < fields["float64"]["compiled_error"]


def test_the_same_computation_compiled_agrees():
    model = Pair().eval()
    with torch.no_grad():
        fields = check().run(
            torch.compile(model, backend="aot_eager"), model, (torch.randn(4, 16),)
        )
    assert fields["status"] == "match" and fields["differing"] == 0
    assert fields["worst"][0]["relative"] < 1e-6 and "float64" not in fields


def test_random_or_stateful_outputs_are_not_compared():
    class Noisy(torch.nn.Module):
        def forward(self, x):
            return x * torch.rand_like(x)

    class Counting(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.calls = 0

        def forward(self, x):
            self.calls += 1
            return x * self.calls

    x = torch.ones(3)
    # A third eager call under the first seed tells random draws from kept state.
    for model, cause in (
        (Noisy(), "repeat under the same one"),
        (Counting(), "also under the same random seed"),
    ):
        fields = check().run(model, model, (x,))
        assert fields["status"] == "varies" and cause in fields["message"], fields["message"]
        assert "worst" not in fields
    assert "fallback_random" in check().run(Noisy(), Noisy(), (x,))["message"]
    # the user's random state is left as it was
    torch.manual_seed(5)
    expected = torch.rand(2)
    torch.manual_seed(5)
    check().run(Noisy(), Noisy(), (x,))
    assert torch.equal(torch.rand(2), expected)


def test_an_output_container_pytree_does_not_know_is_compared_by_its_fields():
    # diffusers' UNet2DModel returns a BaseOutput, a dataclass that is an
    # OrderedDict and no pytree node: it read as "no output is a tensor".
    import collections
    import dataclasses

    @dataclasses.dataclass
    class Output(collections.OrderedDict):
        sample: torch.Tensor

        def __post_init__(self) -> None:
            self["sample"] = self.sample

    # diffusers registers it with pytree, but without key paths, so that
    # tree_flatten_with_path raises on it.
    from torch.utils import _pytree as pytree

    @dataclasses.dataclass
    class Registered(collections.OrderedDict):
        sample: torch.Tensor

        def __post_init__(self) -> None:
            self["sample"] = self.sample

    pytree.register_pytree_node(
        Registered, lambda o: ([o.sample], None), lambda values, _: Registered(*values)
    )

    @dataclasses.dataclass
    class Plain:
        sample: torch.Tensor
        steps: int

    class Wrapped(torch.nn.Module):
        def __init__(self, kind) -> None:
            super().__init__()
            self.pair = Pair()
            self.kind = kind

        def forward(self, x):
            logits = self.pair(x)["logits"]
            return Plain(logits, 2) if self.kind is Plain else self.kind(logits)

    x = torch.randn(4, 16)
    with torch.no_grad():
        model = Wrapped(Output).eval()
        same = check().run(model, model, (x,))
        model = Wrapped(Plain).eval()
        shifted = check().run(lambda x: Plain(model(x).sample + 0.5, 2), model, (x,))
    assert same["status"] == "match" and same["leaves"] == 1
    with torch.no_grad():
        model = Wrapped(Registered).eval()
        registered = check().run(lambda x: Registered(model(x).sample * 2), model, (x,))
    assert registered["status"] == "differ"
    assert registered["worst"][0]["path"] == "output['sample']"
    assert shifted["status"] == "differ" and shifted["leaves"] == 2
    assert shifted["worst"][0]["path"] == "output['sample']"


def test_outputs_with_nothing_to_compare_say_so():
    fields = check().run(lambda x: "text", lambda x: "text", (torch.ones(1),))
    assert fields["status"] == "skipped" and "nothing was compared" in fields["message"]


def test_low_precision_gets_room_and_autocast_sets_it():
    fields = check().judge(
        torch.ones(4, dtype=torch.bfloat16),
        torch.ones(4, dtype=torch.bfloat16),
        torch.full((4,), 1.03, dtype=torch.bfloat16),
        None,
    )
    assert fields["precision"] == "bfloat16" and fields["status"] == "match"
    assert (
        check("fp16").judge(torch.ones(4), torch.ones(4), torch.ones(4), None)["precision"]
        == "float16"
    )


def test_the_probe_checks_a_compiled_run_after_its_calls_and_not_eager():
    drift, seeded, plain, eager = run_probes(
        [
            (fixture_model("bf16_steps"), "--mode", "default", "--iters", "10", "--warmup", "2"),
            (fixture_model("seeded_dropout"), "--mode", "default", "--iters", "5", "--warmup", "2"),
            (gallery("mlp"), "--mode", "default", "--iters", "10", "--warmup", "2"),
            (gallery("mlp"), "--mode", "eager", "--iters", "10", "--warmup", "2"),
        ]
    )
    for run in (drift, seeded, plain, eager):
        assert_well_formed(run)
    # bf16_steps: eager rounds every step away, the fused kernel keeps them;
    # float64 sides with the compiled output.
    event = drift.one("outputs_check")
    assert event["status"] == "differ" and event["precision"] == "bfloat16"
    assert event["worst"][0]["relative"] > event["tolerance"]
    assert event["float64"]["compiled_error"] < event["float64"]["eager_error"] / 5
    phases = [e["name"] for e in drift.of("phase") if e["edge"] == "begin"]
    assert phases.index("profile") < phases.index("outputs")
    end = [e for e in drift.of("phase") if e["name"] == "outputs" and e["edge"] == "end"][0]
    assert drift.events.index(end) < drift.events.index(event)
    # seeded_dropout: the same seed, but Inductor's random draws are its own;
    # float64 sides with eager this time.
    event = seeded.one("outputs_check")
    assert event["status"] == "differ" and event["worst"][0]["mismatched"] > 0
    assert event["float64"]["eager_error"] < 1e-6 < event["float64"]["compiled_error"]
    assert plain.one("outputs_check")["status"] == "match"
    assert not eager.of("outputs_check")
    assert "outputs" not in [e["name"] for e in eager.of("phase")]


def test_a_count_that_flips_at_a_threshold_is_judged_by_float64s_shape():
    """Scores kept at or above a threshold: one score within rounding of it
    makes eager keep 38 and the compiled call 37 (a real torch.compile run of
    such a model on CPU did exactly that). float64 says whose rounding moved."""
    eager = torch.linspace(0.4, 0.6, 38)
    compiled = eager[:37].clone()
    judge = check().judge

    def verdict(float64_count: int) -> dict:
        reference = torch.linspace(0.4, 0.6, float64_count, dtype=torch.float64)
        return judge(eager, eager.clone(), compiled, lambda: reference)

    sides_with_compiled = verdict(37)
    assert sides_with_compiled["status"] == "differ"
    assert sides_with_compiled["worst"][0]["kind"] == "shape"
    # no 0% for a side float64 could not be held against
    assert "float64" not in sides_with_compiled
    note = sides_with_compiled["float64_note"]
    assert "shape [37], as the compiled call does; eager's [38] is the odd one" in note
    assert sides_with_compiled["float64_shape"] == "compiled"
    assert "as eager does; the compiled [37] is the odd one" in verdict(38)["float64_note"]
    assert verdict(38)["float64_shape"] == "eager"
    assert "neither eager's [38] nor the compiled [37]" in verdict(39)["float64_note"]
    assert verdict(39)["float64_shape"] == "neither"


def test_differences_only_in_rows_one_side_left_zero_are_told_apart():
    eager = torch.randn(2, 6, 4)
    compiled = eager + 1e-6
    eager[1, 4:] = 0.0  # padded positions eager returned as zeros
    leaf = compare_leaf("output", eager, compiled, 1e-3)
    assert leaf["differs"] and leaf["mismatched"] == 8
    rows = leaf["zero_rows"]
    assert rows["side"] == "eager" and rows["rows"] == 2 and rows["of"] == 12
    assert rows["differing_rows"] == 2 and rows["within"] is True
    assert rows["relative_elsewhere"] < 1e-5
    # A difference outside those rows too: no such verdict.
    compiled[0, 0, 0] += 1.0
    assert "zero_rows" not in compare_leaf("output", eager, compiled, 1e-3)
    # Zeros in most rows are not padding (a ReLU's output, a sparse result).
    sparse = torch.zeros(2, 6, 4)
    sparse[0, 0] = 1.0
    assert "zero_rows" not in compare_leaf("output", sparse, sparse + 0.5, 1e-3)
    # One column is no row of values.
    column = torch.zeros(6, 1)
    assert "zero_rows" not in compare_leaf("output", column, column + 0.5, 1e-3)


def _aot_eager_run(model: str) -> tuple:
    return (
        fixture_model(model),
        "--mode",
        "default",
        "--backend",
        "aot_eager",
        "--iters",
        "3",
        "--warmup",
        "1",
        "--no-code",
    )


def test_a_transformer_encoder_with_a_padding_mask_differs_by_its_fast_path():
    """PyTorch's encoder fast path returns padded positions as zeros in eager
    (nested tensors); the compiled graph computes them (torch 2.15). Output
    per position: only the padded rows differ. Averaged over every position
    (pooled_encoder): every padded sentence's output differs. Either way eager
    with the fast path off agrees with the compiled call."""
    padded, pooled = run_probes(
        [_aot_eager_run("padded_encoder"), _aot_eager_run("pooled_encoder")]
    )
    assert_well_formed(padded)
    event = padded.one("outputs_check")
    assert event["status"] == "differ", event
    rows = event["worst"][0]["zero_rows"]
    assert rows["side"] == "eager" and rows["differing_rows"] == 3 and rows["of"] == 16
    assert rows["within"] is True
    assert event["fast_path"]["compiled_agrees"] is True

    assert_well_formed(pooled)
    event = pooled.one("outputs_check")
    assert event["status"] == "differ", event
    assert "zero_rows" not in event["worst"][0]
    # the one sentence without padding agrees: 4 outputs of 16
    assert event["worst"][0]["mismatched"] == 12
    fast = event["fast_path"]
    assert fast["modules"] == ["encoder (TransformerEncoder)"]
    assert fast["compiled_agrees"] is True and fast["compiled_relative"] < event["tolerance"]
    assert fast["eager_relative"] > event["tolerance"]
    assert "float64" not in event and "float64_note" not in event


def test_the_fast_path_is_named_only_where_eager_without_it_gives_the_compiled_outputs():
    eager = torch.zeros(4, 3)
    compiled = torch.ones(4, 3)
    asked = []

    def float64():
        asked.append(True)
        return compiled.double()

    def verdict(plain: torch.Tensor) -> dict:
        return check().judge(eager, eager.clone(), compiled, float64, (["enc (X)"], lambda: plain))

    agreed = verdict(compiled + 1e-6)
    assert agreed["fast_path"]["compiled_agrees"] is True
    assert agreed["fast_path"]["eager_relative"] == 1.0
    assert "float64" not in agreed and not asked  # float64 would take the fast path too
    other = verdict(eager.clone())
    assert other["fast_path"]["compiled_agrees"] is False
    assert other["fast_path"]["compiled_relative"] > 0 and asked
    assert "float64" in other

    def broken():
        raise RuntimeError("boom")

    raised = check().judge(eager, eager.clone(), compiled, None, (["enc (X)"], broken))
    assert raised["status"] == "differ" and "boom" in raised["fast_path"]["note"]
    # nothing asked when the outputs agree
    assert "fast_path" not in check().judge(
        eager, eager.clone(), eager.clone(), None, (["e"], broken)
    )


def test_fast_path_modules_are_the_outermost_and_only_while_the_path_is_on():
    class Wrapped(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
            self.attn = torch.nn.MultiheadAttention(8, 2)

    model = Wrapped()
    assert fast_path_modules(torch, model) == [
        "encoder (TransformerEncoder)",
        "attn (MultiheadAttention)",
    ]
    assert fast_path_modules(torch, torch.nn.Linear(2, 2)) == []
    assert fast_path_modules(torch, lambda x: x) == []
    torch.backends.mha.set_fastpath_enabled(False)
    try:
        assert fast_path_modules(torch, model) == []
    finally:
        torch.backends.mha.set_fastpath_enabled(True)
