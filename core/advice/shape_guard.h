// Reads the guard failure Dynamo gives for a recompile when an input's size
// (or stride) changed: which tensor, which dimension, from what to what.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cs::core::advice {

struct ShapeGuardFailure {
    std::string tensor; // the input's name as Dynamo spells it: "tokens", "L['x']"
    std::string what;   // "size" or "stride"
    int dim = -1;
    int64_t expected = 0;
    int64_t actual = 0;
};

// nullopt when the reason is not a size/stride guard.
std::optional<ShapeGuardFailure> parseShapeGuard(const std::string& reason);

// A guard on a Python value that changed: "self.calls == 7" (an int attribute
// of the module, which torch treats as a constant), "L['scale'] == 0.5".
struct ValueGuardFailure {
    std::string name;    // as torch wrote it: "self.calls", "L['scale']"; a global by its name
    std::string value;   // the value the failed entry was compiled for
    std::string hint;    // torch's own "(HINT: ...)" for it; empty when none
    std::string code;    // the source line torch names for the guard; empty when none
    std::string where;   // "ptime.py:9 in forward"; empty when none
    bool global = false; // a global of the model's code: "STEP" of torch's G['STEP']
};

// nullopt when the reason is not `NAME == VALUE` on a plain number, bool or
// string (quoted as torch wrote it: 'cls').
std::optional<ValueGuardFailure> parseValueGuard(const std::string& reason);

// A guard on whether a dict holds a key: "not ___dict_contains('cpu', D)"
// fails when a call put the key in (a cache the first call fills), and
// "___dict_contains('cpu', D)" when a call took it out.
struct DictKeyGuardFailure {
    std::string dict;   // readable: "self.stages[0].attn.cache" of torch's _modules['stages'] form
    std::string key;    // as torch wrote it: "'cpu'"
    bool added = false; // compiled with the key absent, and a call put it in
    std::string code;   // the source line torch names for the guard; empty when none
    std::string where;  // "levit.py:304 in get_attention_biases"; empty when none
};
std::optional<DictKeyGuardFailure> parseDictKeyGuard(const std::string& reason);

// A guard on a container's length: "len(self.history) == 3", or "not
// G['stats']" for the empty one. A list the compiled code appends to on every
// call fails it on every call.
struct LengthGuardFailure {
    std::string container;  // readable: "self.history", "stats" for a module's global
    int64_t length = 0;     // what the failed entry was compiled for; 0 for `not X`
    bool emptiness = false; // the `not X` form, which a bool or None can take too
    std::string code;       // the source line torch names for the guard; empty when none
    std::string where;      // "hooked.py:7 in record"; empty when none
    std::string file;       // the full path from torch's user stack trace; empty when none
    int line = 0;
};
std::optional<LengthGuardFailure> parseLengthGuard(const std::string& reason);

// A guard on what kind of tensor an input is, not its size: "tensor 'x'
// dtype mismatch. expected Float, actual Half", "tensor 'x' requires_grad
// mismatch. expected requires_grad=0".
struct TensorKindGuardFailure {
    std::string tensor;
    std::string property; // "dtype", "requires_grad", "device", "rank", "dispatch keys"
    std::string expected; // "Float", "False"
    std::string actual;   // "Half", "True"; empty when torch does not say
};
std::optional<TensorKindGuardFailure> parseTensorKindGuard(const std::string& reason);

// "position_bias is None": the graph was compiled with the argument or
// attribute None (or, "is not None", with a value) and a call passed the other.
struct NoneGuardFailure {
    std::string name;          // readable: "position_bias", "self.scales", "args[2]"
    bool compiledNone = false; // the graph took it as None
    std::string code;          // the source line torch names for the guard; empty when none
    std::string where;         // "poolers.py:309 in forward"; empty when none
    std::string file;          // that line's whole path, from torch's user stack trace
    int line = 0;
};
std::optional<NoneGuardFailure> parseNoneGuard(const std::string& reason);

// "GLOBAL_STATE changed: grad_mode autocast(cpu)_enabled": the call ran under
// another global state than the graph was compiled under; torch's names of
// what changed, in its order. nullopt for another guard.
std::optional<std::vector<std::string>> parseGlobalStateGuard(const std::string& reason);

// "___check_type_id(args[0], 687941376), type=<class 'm.BigBirdEncoder'>": a
// call passed an object of another type than the one the graph was compiled for.
struct TypeGuardFailure {
    std::string name; // as torch wrote it: "args[0]", "L['x']"
    std::string
        type; // the type compiled for, unqualified: "BigBirdEncoder"; empty when torch does not say
    std::string code; // the source line torch names for the guard; empty when none
    std::string where;
};
std::optional<TypeGuardFailure> parseTypeGuard(const std::string& reason);

// A guard on an expression of an input's symbolic size, which torch adds
// when code branches on a value computed from it (not torch's own 0/1
// specialization or duck sizing):
// "(((-1) + (input_ids.size()[1] // 4)) // 2) == 1  # ...  # vmap.py:72 in f"
// (transformers' Mamba scanning its sequence). The dimension is symbolic
// already: marking it dynamic does not take the branch away.
struct DerivedSizeGuardFailure {
    std::string tensor;     // "input_ids"
    int dim = -1;           // 1
    std::string expression; // the guard before torch's "# source" comment
    std::string where;      // "vmap.py:72 in _validate_and_get_batch_size"; empty when none
    // torch's own convolution choosing its CPU algorithm by the input's size
    // ("3*x.size()[2]*x.size()[3] <= 20480  # return F.conv2d(  # conv.py:560
    // in _conv_forward (_subclasses/fake_impls.py:2258 in conv)"): no branch
    // of the model's code.
    bool convolutionBackend = false;
};
std::optional<DerivedSizeGuardFailure> parseDerivedSizeGuard(const std::string& reason);

// A guard torch adds under dynamic shapes where two dimensions had one size
// in the first compile and it gave them one symbol (duck sizing):
// "pixel_values.size()[3] == pixel_values.size()[2]  # duck sizing added this
// equality because these variables had the same size 64 (...)". A call where
// they differ compiles again (SegFormer's first image square, a later one not).
struct DuckSizeGuardFailure {
    std::string tensor; // "pixel_values"
    int dim = -1;       // 3
    std::string otherTensor;
    int otherDim = -1; // 2
    int64_t size = -1; // 64; -1 when torch does not say
    std::string expression;
};
std::optional<DuckSizeGuardFailure> parseDuckSizeGuard(const std::string& reason);

// "L['self']._modules['stages']._modules['0'].attn" → "self.stages[0].attn".
std::string modulePath(const std::string& name);

// The sizes of a call's inputs as a recompile lists them ("[2, 17], int, [3]"):
// nullopt for an input that is not a tensor or has a symbolic size.
using InputSizes = std::vector<std::optional<std::vector<int64_t>>>;
InputSizes parseInputShapes(const std::string& text);

// The model event's inputs ("input_ids: int64[2, 32]", "float32[8]"): the
// names (empty where the probe gave none) and the sizes.
struct NamedInputs {
    std::vector<std::string> names;
    InputSizes sizes;
};
NamedInputs parseModelInputs(const std::vector<std::string>& inputs);

} // namespace cs::core::advice
