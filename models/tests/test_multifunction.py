"""The Neural Engine-ready multifunction package (--multifunction): its spec reads back
with two fixed-shape functions sharing fp16 states, and in torch the fixed-shape module
decodes through its state exactly like the Hugging Face model (prefill, then decode, at
arbitrary write positions, including an overlapping re-fed chunk as the runtime sends)."""

import json

import pytest
import torch

from conftest import TINY_CONTEXT, run_cli
from spec_checks import (FLOAT16, INT32, IOS18_SPEC_VERSION, check_rope_tables_uncompressed, load_spec,
                         package_bytes)
from statefulchat_convert import multifunction, sources
from statefulchat_convert.architecture import describe
from statefulchat_convert.fixed_wrapper import FixedShapeCausalLM, fixed_causal_mask
from statefulchat_convert.interface import CAUSAL_MASK, INPUT_IDS, KEY_CACHE, LOGITS, POSITION, VALUE_CACHE

CONTEXT = 64


def _load(folder):
    source = sources.resolve(str(folder))
    return sources.load_model(source), describe(sources.load_config(source))


def _step(module, ids, position, context):
    q = ids.shape[-1]
    with torch.no_grad():
        return module(ids.to(torch.int32), fixed_causal_mask(q, position, context),
                      torch.tensor([position], dtype=torch.int32))


@pytest.mark.parametrize("kind", ["llama", "qwen2"])
def test_prefill_then_decode_matches_hf(kind, tiny_llama_dir, tiny_qwen_dir):
    model, shape = _load(tiny_llama_dir if kind == "llama" else tiny_qwen_dir)
    wrapper = FixedShapeCausalLM(model, shape, CONTEXT).eval()
    ids = torch.randint(0, shape.vocab_size, (1, 23), generator=torch.Generator().manual_seed(5))
    with torch.no_grad():
        expected = model(ids).logits
    prefill = 8
    got = [_step(wrapper, ids[:, 0:prefill], 0, CONTEXT),           # prefill function, q = 8
           _step(wrapper, ids[:, prefill:2 * prefill], prefill, CONTEXT)]
    for position in range(2 * prefill, 20):                          # decode function, q = 1
        got.append(_step(wrapper, ids[:, position:position + 1], position, CONTEXT))
    torch.testing.assert_close(torch.cat(got, dim=1), expected[:, :20], atol=1e-4, rtol=1e-4)
    # A 3-token tail as the runtime sends it: one q = 8 chunk re-feeding 5 cached tokens.
    tail = _step(wrapper, ids[:, 15:23], 15, CONTEXT)
    torch.testing.assert_close(tail, expected[:, 15:23], atol=1e-4, rtol=1e-4)


def test_traced_functions_match_at_other_positions(tiny_llama_dir):
    """The traced prefill/decode graphs, run at positions other than the tracing example,
    still match: the write position is an input, not a baked-in constant."""
    model, shape = _load(tiny_llama_dir)
    wrapper = FixedShapeCausalLM(model, shape, CONTEXT)
    prefill = multifunction.trace_fixed(wrapper, 8)
    decode = multifunction.trace_fixed(wrapper, 1)
    # Both traces share the module's buffers: the state is one, as in the package.
    assert dict(prefill.named_buffers())[KEY_CACHE].data_ptr() == dict(decode.named_buffers())[KEY_CACHE].data_ptr()
    wrapper.reset()
    ids = torch.randint(0, shape.vocab_size, (1, 12), generator=torch.Generator().manual_seed(6))
    got = [_step(prefill, ids[:, 0:8], 0, CONTEXT)]
    got += [_step(decode, ids[:, p:p + 1], p, CONTEXT) for p in range(8, 12)]
    with torch.no_grad():
        expected = model(ids).logits
    torch.testing.assert_close(torch.cat(got, dim=1), expected, atol=1e-4, rtol=1e-4)


@pytest.fixture(scope="module")
def multifunction_package(tiny_llama_dir, tmp_path_factory):
    target = tmp_path_factory.mktemp("tiny-multifunction") / "out"
    assert run_cli(tiny_llama_dir, "--context", TINY_CONTEXT, "--multifunction", "--quantize", "int8",
                   "--output", target) == 0
    return target


def _shape(feature):
    array = feature.type.multiArrayType
    assert not array.HasField("shapeRange") and not array.HasField("enumeratedShapes"), feature.name
    return feature.name, array.dataType, list(array.shape)


def test_spec_has_two_fixed_shape_functions_sharing_fp16_states(multifunction_package):
    spec = load_spec(multifunction_package)
    assert spec.specificationVersion >= IOS18_SPEC_VERSION
    assert set(spec.mlProgram.functions) == {"prefill", "decode"}
    functions = {f.name: f for f in spec.description.functions}
    assert set(functions) == {"prefill", "decode"}
    assert spec.description.defaultFunctionName == "decode"
    # The rope rows are gathered by position here: those tables must stay uncompressed too.
    check_rope_tables_uncompressed(spec)
    for name, q in (("prefill", 64), ("decode", 1)):
        function = functions[name]
        assert sorted(_shape(i) for i in function.input) == sorted([
            (CAUSAL_MASK, FLOAT16, [1, 1, q, TINY_CONTEXT]),
            (INPUT_IDS, INT32, [1, q]),
            (POSITION, INT32, [1]),
        ])
        assert [o.name for o in function.output] == [LOGITS]
        states = {s.name: s.type.stateType.arrayType for s in function.state}
        assert set(states) == {KEY_CACHE, VALUE_CACHE}
        for state in states.values():
            assert state.dataType == FLOAT16
            assert list(state.shape) == [2, 1, 2, TINY_CONTEXT, 32]


def test_manifest_names_the_functions_and_weights_are_shared(multifunction_package, tiny_packages):
    data = json.loads((multifunction_package / "manifest.json").read_text())
    assert data["functions"] == {"prefill": "prefill", "decode": "decode", "prefill_length": 64,
                                 "decode_length": 1, "default": "decode"}
    assert data["io"]["inputs"][POSITION] == {"dtype": "int32", "shape": [1]}
    assert data["io"]["inputs"][CAUSAL_MASK]["shape"] == [1, 1, "q", TINY_CONTEXT]
    meta = load_spec(multifunction_package).description.metadata.userDefined
    assert json.loads(meta["statefulchat.functions"])["prefill"] == "prefill"
    # One copy of the weights for both functions: about the single-function package's size.
    single = package_bytes(tiny_packages["int8"])
    assert package_bytes(multifunction_package) < 1.3 * single


def test_prefill_length_is_checked(tiny_llama_dir, tmp_path):
    assert run_cli(tiny_llama_dir, "--context", TINY_CONTEXT, "--multifunction", "--prefill-length",
                   TINY_CONTEXT + 64, "--output", tmp_path / "x") == 2
    assert not (tmp_path / "x").exists()
