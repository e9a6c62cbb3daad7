"""The conversion stages in order, writing into a staging folder that becomes the output
only when every stage succeeded: a failure never leaves a partial package behind."""

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from . import architecture, deps, export, manifest, multifunction, quantize, sources, tokenizer_files
from .errors import InvalidOption, OutputExists
from .progress import Progress


@dataclass
class Options:
    source: str
    output: Path
    context: int = 2048
    quantize: str = "none"
    revision: Optional[str] = None
    overwrite: bool = False
    # One package with fixed-shape `prefill` (q = prefill_length) and `decode` (q = 1)
    # functions sharing weights and states: what the Neural Engine runs (multifunction.py).
    multifunction: bool = False
    prefill_length: int = 64


def _check_output(output: Path, overwrite: bool) -> None:
    if output.exists() and not output.is_dir():
        raise OutputExists(f"{output} exists and is not a folder.")
    if output.exists() and any(output.iterdir()) and not overwrite:
        raise OutputExists(f"{output} exists and is not empty; pass --overwrite to replace it.")


def run(options: Options, progress: Optional[Progress] = None) -> Path:
    """Convert and return the output folder (package, tokenizer files, manifest)."""
    progress = progress or Progress(total=8)
    output = Path(options.output).expanduser().resolve()

    # Everything cheap is checked before the first heavy stage.
    quantize.check_available(options.quantize)
    source = sources.resolve(options.source, options.revision)
    deps.require(gguf=source.kind == "gguf")
    _check_output(output, options.overwrite)

    with progress.stage(f"Reading config of {source.reference}"):
        config = sources.load_config(source)
        shape = architecture.describe(config)
        architecture.check_context(options.context, shape)
        if options.multifunction and not 1 < options.prefill_length <= options.context:
            raise InvalidOption(f"--prefill-length must be between 2 and the context ({options.context}).")

    output.parent.mkdir(parents=True, exist_ok=True)
    staging = output.parent / f".{output.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir()
    try:
        _convert_into(staging, options, source, config, shape, progress)
        if output.exists():
            shutil.rmtree(output)
        staging.rename(output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return output


def _convert_into(staging: Path, options: Options, source, config, shape, progress) -> None:
    from .wrapper import StatefulCausalLM

    with progress.stage("Loading tokenizer"):
        tokenizer = sources.load_tokenizer(source)
        tokenizer_files.save(tokenizer, staging)
    with progress.stage("Loading weights"):
        model = sources.load_model(source)
    if options.multifunction:
        _convert_multifunction(staging, options, source, config, shape, tokenizer, model, progress)
        return
    with progress.stage(f"Tracing with a {options.context}-token state"):
        wrapper = StatefulCausalLM(model, shape, options.context)
        traced = export.trace(wrapper)
    with progress.stage("Converting to Core ML (mlprogram, iOS18/macOS15)"):
        mlmodel = export.convert(traced, wrapper)
    del traced, wrapper, model
    with progress.stage(f"Compressing weights: {options.quantize}"):
        mlmodel = quantize.apply(mlmodel, options.quantize)
    with progress.stage("Writing manifest and metadata"):
        data = manifest.build(shape, options.context, quantize.describe(options.quantize),
                              source.as_dict(),
                              tokenizer_files.special_token_ids(tokenizer, config))
        manifest.apply_metadata(mlmodel, data)
        manifest.write(data, staging)
    with progress.stage(f"Saving {manifest.PACKAGE_NAME}"):
        mlmodel.save(str(staging / manifest.PACKAGE_NAME))


def _convert_multifunction(staging: Path, options: Options, source, config, shape, tokenizer,
                           model, progress) -> None:
    from .fixed_wrapper import FixedShapeCausalLM

    merged = staging / ".merged.mlpackage"
    with progress.stage(f"Tracing and converting prefill (q={options.prefill_length}) and decode "
                        f"(q=1), compressing ({options.quantize}), merging into one package"):
        wrapper = FixedShapeCausalLM(model, shape, options.context)
        mlmodel = multifunction.build(wrapper, options.quantize, merged, options.prefill_length)
    del wrapper, model
    with progress.stage("Writing manifest and metadata"):
        data = manifest.build(shape, options.context, quantize.describe(options.quantize),
                              source.as_dict(),
                              tokenizer_files.special_token_ids(tokenizer, config),
                              functions=multifunction.describe(options.prefill_length))
        manifest.apply_metadata(mlmodel, data)
        manifest.write(data, staging)
    with progress.stage(f"Saving {manifest.PACKAGE_NAME}"):
        mlmodel.save(str(staging / manifest.PACKAGE_NAME))
        shutil.rmtree(merged)


def derive_variant(converted: Path, mode: str, output: Path) -> Path:
    """Compress an already converted fp16 output folder into a new output folder.

    Tracing and conversion are the slow stages and do not depend on the quantization, so
    trying several modes need not repeat them."""
    import json

    import coremltools as ct

    quantize.check_available(mode)
    converted, output = Path(converted), Path(output)
    data = json.loads((converted / manifest.MANIFEST_NAME).read_text(encoding="utf-8"))
    if data["quantization"]["mode"] != "none":
        raise OutputExists(f"{converted} is already compressed ({data['quantization']['mode']}).")
    if data.get("functions"):
        raise InvalidOption("a multifunction package is compressed while converting: use --quantize.")
    _check_output(output, overwrite=False)
    staging = output.parent / f".{output.name}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    staging.mkdir(parents=True)
    try:
        mlmodel = ct.models.MLModel(str(converted / manifest.PACKAGE_NAME), skip_model_load=True)
        mlmodel = quantize.apply(mlmodel, mode)
        data["quantization"] = quantize.describe(mode)
        manifest.apply_metadata(mlmodel, data)
        manifest.write(data, staging)
        for name in tokenizer_files.FILES:
            shutil.copyfile(converted / name, staging / name)
        mlmodel.save(str(staging / manifest.PACKAGE_NAME))
        if output.exists():
            output.rmdir()
        staging.rename(output)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return output
