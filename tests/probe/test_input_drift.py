"""The probe's warning when a model changes its own inputs across calls
(probe/compilescope_probe/input_drift.py)."""

import torch
from conftest import fixture_model, gallery, run_probes

from compilescope_probe import input_drift


class Layer:
    def __init__(self, n: int) -> None:
        self.keys = torch.zeros(1, 2, n, 4)
        self.values = torch.zeros(1, 2, n, 4)
        self._private = torch.zeros(n)  # not walked: an implementation detail


class Cache:
    def __init__(self, n: int) -> None:
        self.layers = [Layer(n), Layer(n)]


def test_tensors_are_named_as_dynamo_names_them_through_containers_and_objects():
    shapes = input_drift.fingerprint(
        (torch.zeros(2, 3), {"mask": torch.ones(5)}, Cache(8), 7), ["x", "extra", "past", "n"]
    )
    assert shapes == {
        "x": (2, 3),
        "extra['mask']": (5,),
        "past.layers[0].keys": (1, 2, 8, 4),
        "past.layers[0].values": (1, 2, 8, 4),
        "past.layers[1].keys": (1, 2, 8, 4),
        "past.layers[1].values": (1, 2, 8, 4),
    }
    assert input_drift.fingerprint((torch.zeros(1),), None) == {"args[0]": (1,)}


def test_a_grown_cache_is_named_and_a_write_in_place_is_not():
    cache = Cache(8)
    x = torch.zeros(3)
    before = input_drift.fingerprint((x, cache), ["x", "past"])
    x.add_(1)  # same shape, same work: a StaticCache rewrites its slot so
    for layer in cache.layers:
        layer.keys = torch.zeros(1, 2, 12, 4)
    found = input_drift.changes(before, input_drift.fingerprint((x, cache), ["x", "past"]))
    assert found == [
        "past.layers[0].keys went from [1, 2, 8, 4] to [1, 2, 12, 4]",
        "past.layers[1].keys went from [1, 2, 8, 4] to [1, 2, 12, 4]",
    ]
    message = input_drift.warning(found)
    assert "past.layers[0].keys went from [1, 2, 8, 4] to [1, 2, 12, 4]" in message
    assert "StaticCache" in message
    assert input_drift.warning([]) is None
    many = input_drift.warning([f"t{i} is gone" for i in range(5)])
    assert "t2 is gone (and 2 more)" in many and "t3" not in many


def test_a_cycle_and_a_deep_object_end_the_walk():
    a = Cache(1)
    a.layers.append(a)  # a cycle
    assert len(input_drift.fingerprint((a,), ["a"])) == 4
    wide = {str(i): [i] for i in range(50_000)}  # no tensor in it: walked within the budget
    wide["t"] = torch.zeros(2)
    assert input_drift.fingerprint((wide,), ["w"]) == {}


def test_the_probe_warns_for_a_model_that_grows_its_input_and_not_for_one_that_does_not():
    growing, plain = run_probes(
        [
            (fixture_model("growing_input"), "--mode", "eager", "--warmup", "2", "--iters", "5"),
            (gallery("mlp"), "--mode", "eager", "--warmup", "2", "--iters", "5"),
        ]
    )
    changed = [e for e in growing.of("log") if e.get("code") == "inputs_changed"]
    assert len(changed) == 1 and changed[0]["level"] == "warning", growing.of("log")
    assert changed[0]["detail"].startswith("cache.keys went from [1, 4] to [")
    assert changed[0]["detail"] in changed[0]["message"]
    assert not any(
        "changed its own inputs" in e["message"] for e in plain.of("log") if e["level"] == "warning"
    )
