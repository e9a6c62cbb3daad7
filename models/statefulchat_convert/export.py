"""Trace the stateful wrapper and convert it with coremltools.

`ct.convert` works on Linux; only compiling and predicting need macOS, hence
`skip_model_load=True` (the package is compiled on first load on the Mac).
"""

from .interface import CAUSAL_MASK, INPUT_IDS, KEY_CACHE, LOGITS, VALUE_CACHE

# torch, numpy and coremltools are imported inside the functions: the pipeline imports
# this module before the dependency check has had a chance to explain what is missing.


def trace(wrapper):
    """Trace with q=2 of end=5 so neither dimension equals another and none is 1:
    a shape that coincides with a constant could be baked in by the tracer."""
    import torch

    from .wrapper import causal_mask

    wrapper.eval()
    example_ids = torch.zeros((1, 2), dtype=torch.int32)
    example_mask = causal_mask(2, 5)
    with torch.no_grad():
        traced = torch.jit.trace(wrapper, (example_ids, example_mask), check_trace=False)
    # Tracing ran the forward once; the state a runtime gets is zeroed, so match that.
    wrapper.reset()
    return traced


def convert(traced, wrapper):
    """Return an in-memory `ct.models.MLModel` (mlprogram, iOS18/macOS15)."""
    import coremltools as ct
    import numpy as np

    context = wrapper.context
    # One RangeDim object for q in both inputs tells Core ML they are the same length.
    query_length = ct.RangeDim(lower_bound=1, upper_bound=context, default=1)
    end_length = ct.RangeDim(lower_bound=1, upper_bound=context, default=1)
    kv_shape = tuple(getattr(wrapper, KEY_CACHE).shape)

    return ct.convert(
        traced,
        inputs=[
            ct.TensorType(name=INPUT_IDS, shape=(1, query_length), dtype=np.int32),
            ct.TensorType(name=CAUSAL_MASK, shape=(1, 1, query_length, end_length),
                          dtype=np.float16),
        ],
        outputs=[ct.TensorType(name=LOGITS, dtype=np.float16)],
        # Core ML states must be fp16 and fixed-shape; names must equal the buffer names.
        states=[
            ct.StateType(wrapped_type=ct.TensorType(shape=kv_shape, dtype=np.float16),
                         name=KEY_CACHE),
            ct.StateType(wrapped_type=ct.TensorType(shape=kv_shape, dtype=np.float16),
                         name=VALUE_CACHE),
        ],
        minimum_deployment_target=ct.target.iOS18,
        compute_precision=ct.precision.FLOAT16,
        convert_to="mlprogram",
        skip_model_load=True,
    )
