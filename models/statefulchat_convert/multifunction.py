"""The Neural Engine-ready package: one .mlpackage with two fixed-shape functions that
share weights and states (coremltools multifunction, iOS18):

- `prefill`: input_ids [1, P], causal_mask [1, 1, P, C], position [1] -> logits [1, P, V]
- `decode`:  input_ids [1, 1], causal_mask [1, 1, 1, C], position [1] -> logits [1, 1, V]

with P = 64 by default and C the context. Both write key_cache/value_cache (the same fp16
state names, so one MLState serves both). Each function is traced and converted on its
own from the same module, compressed the same way, saved, and merged by
`ct.utils.save_multifunction`, which deduplicates identical weights by hash.
"""

import shutil
from pathlib import Path

from . import quantize
from .interface import CAUSAL_MASK, INPUT_IDS, KEY_CACHE, LOGITS, POSITION, VALUE_CACHE

PREFILL = "prefill"
DECODE = "decode"
DEFAULT_PREFILL_LENGTH = 64


def trace_fixed(wrapper, query_length: int):
    import torch

    from .fixed_wrapper import fixed_causal_mask

    wrapper.eval()
    # A position that is neither 0 nor equal to q, so no shape or value coincides.
    position = 3
    ids = torch.zeros((1, query_length), dtype=torch.int32)
    mask = fixed_causal_mask(query_length, position, wrapper.context)
    with torch.no_grad():
        traced = torch.jit.trace(wrapper, (ids, mask, torch.tensor([position], dtype=torch.int32)),
                                 check_trace=False)
    wrapper.reset()
    return traced


def convert_fixed(traced, wrapper, query_length: int):
    import coremltools as ct
    import numpy as np

    context = wrapper.context
    kv_shape = tuple(getattr(wrapper, KEY_CACHE).shape)
    return ct.convert(
        traced,
        inputs=[
            ct.TensorType(name=INPUT_IDS, shape=(1, query_length), dtype=np.int32),
            ct.TensorType(name=CAUSAL_MASK, shape=(1, 1, query_length, context), dtype=np.float16),
            ct.TensorType(name=POSITION, shape=(1,), dtype=np.int32),
        ],
        outputs=[ct.TensorType(name=LOGITS, dtype=np.float16)],
        states=[
            ct.StateType(wrapped_type=ct.TensorType(shape=kv_shape, dtype=np.float16), name=KEY_CACHE),
            ct.StateType(wrapped_type=ct.TensorType(shape=kv_shape, dtype=np.float16), name=VALUE_CACHE),
        ],
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
        skip_model_load=True,
    )


def build(wrapper, mode: str, destination: Path, prefill_length: int = DEFAULT_PREFILL_LENGTH):
    """Write the merged two-function package to `destination`; return it loaded (spec only)."""
    import coremltools as ct

    parts = destination.parent / f".{destination.name}.functions"
    shutil.rmtree(parts, ignore_errors=True)
    parts.mkdir(parents=True)
    try:
        descriptor = ct.utils.MultiFunctionDescriptor()
        for name, length in ((PREFILL, prefill_length), (DECODE, 1)):
            mlmodel = convert_fixed(trace_fixed(wrapper, length), wrapper, length)
            mlmodel = quantize.apply(mlmodel, mode)
            path = parts / f"{name}.mlpackage"
            mlmodel.save(str(path))
            del mlmodel
            descriptor.add_function(str(path), src_function_name="main", target_function_name=name)
        descriptor.default_function_name = DECODE
        ct.utils.save_multifunction(descriptor, str(destination))
    finally:
        shutil.rmtree(parts, ignore_errors=True)
    return ct.models.MLModel(str(destination), skip_model_load=True)


def describe(prefill_length: int = DEFAULT_PREFILL_LENGTH) -> dict:
    """The manifest's `functions` entry: what the runtime loads with functionName."""
    return {PREFILL: PREFILL, DECODE: DECODE, "prefill_length": prefill_length, "decode_length": 1,
            "default": DECODE}
