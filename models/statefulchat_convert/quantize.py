"""Weight compression after conversion, one mode per target compute unit.

- int8: per-channel symmetric; safe everywhere, halves the package.
- int4: block-wise (32) symmetric; the GPU path dequantizes blocks on the fly (macOS 15).
- palettize4: 4-bit k-means lookup tables per group of 16 channels; the Neural Engine
  executes palettized weights natively.
"""

from .errors import InvalidOption

MODES = ("none", "int8", "int4", "palettize4")

# Weights smaller than this stay fp16: norms and biases cost nothing and lose precision.
_WEIGHT_THRESHOLD = 2048
INT4_BLOCK_SIZE = 32
PALETTE_GROUP_SIZE = 16


def describe(mode: str) -> dict:
    """What the manifest records about the compression, so the runtime can report it."""
    return {
        "none": {"mode": "none", "weights": "fp16"},
        "int8": {"mode": "int8", "weights": "int8 linear symmetric, per channel"},
        "int4": {"mode": "int4", "weights": "int4 linear symmetric",
                 "block_size": INT4_BLOCK_SIZE},
        "palettize4": {"mode": "palettize4", "weights": "4-bit k-means palette",
                       "group_size": PALETTE_GROUP_SIZE},
    }[mode]


def check_available(mode: str) -> None:
    if mode not in MODES:
        raise InvalidOption(f"--quantize {mode!r}: choose one of {', '.join(MODES)}.")


def apply(mlmodel, mode: str):
    """Return a compressed copy of `mlmodel` (or `mlmodel` itself for "none")."""
    check_available(mode)
    if mode == "none":
        return mlmodel
    # Imported here: the CLI reads MODES for --help before numpy/coremltools are checked.
    from coremltools.optimize import coreml as cto

    from . import palette

    if mode == "int8":
        op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int8",
                                         granularity="per_channel",
                                         weight_threshold=_WEIGHT_THRESHOLD)
        return cto.linear_quantize_weights(mlmodel, _weights_only(cto, op, mlmodel))
    if mode == "int4":
        op = cto.OpLinearQuantizerConfig(mode="linear_symmetric", dtype="int4",
                                         granularity="per_block", block_size=INT4_BLOCK_SIZE,
                                         weight_threshold=_WEIGHT_THRESHOLD)
        return cto.linear_quantize_weights(mlmodel, _weights_only(cto, op, mlmodel))
    # "custom" with our k-means: coremltools' "kmeans" is minutes slower (see palette.py),
    # and its worker pool forks after torch started threads, which hangs on Linux.
    op = cto.OpPalettizerConfig(mode="custom", lut_function=palette.lut_function,
                                granularity="per_grouped_channel",
                                group_size=PALETTE_GROUP_SIZE,
                                weight_threshold=_WEIGHT_THRESHOLD)
    return cto.palettize_weights(mlmodel, _weights_only(cto, op, mlmodel))


def _weights_only(cto, op, mlmodel):
    """Compress only constants that feed `linear` (projections, lm_head) and `gather`
    (embedding). A global config would also quantize the precomputed rope cos/sin tables,
    whose rows span [-1, 1] with exact zeros (sin 0): int4 rope visibly hurts quality.
    The fixed-shape functions look their rope rows up with a `gather` too (by position,
    fixed_wrapper.py), so those gathers are named and left alone."""
    skip = {name: None for name in _rope_gathers(mlmodel)}
    return cto.OptimizationConfig(op_type_configs={"linear": op, "gather": op}, op_name_configs=skip)


def _rope_gathers(mlmodel) -> list:
    names = []
    for function in mlmodel.get_spec().mlProgram.functions.values():
        for block in function.block_specializations.values():
            for op in block.operations:
                if op.type != "gather":
                    continue
                table = [a.name for a in op.inputs["x"].arguments]
                if any(name.startswith("rope_") for name in table):
                    names.extend(o.name for o in op.outputs)
                    names.extend(table)  # the constants themselves, in case the op name differs
    return names
