#!/usr/bin/env python3
"""Convert a Hugging Face causal LM (Llama, SmolLM, Qwen2) into a stateful Core ML package.

    python3 models/convert.py Qwen/Qwen2.5-Coder-1.5B-Instruct --context 2048 \
        --quantize int4 --output out/qwen-coder-1.5b-int4

SOURCE is a hub id, a local model folder, or a .gguf file. The output folder receives
model.mlpackage, tokenizer.json, tokenizer_config.json and manifest.json.
"""

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from statefulchat_convert import __version__  # noqa: E402
from statefulchat_convert.errors import ConversionError  # noqa: E402
from statefulchat_convert.quantize import MODES  # noqa: E402


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="convert.py", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", help="hub id (owner/name), model folder, or .gguf file")
    parser.add_argument("--context", type=int, default=2048,
                        help="KV-cache capacity in tokens, a multiple of 64 (default 2048)")
    parser.add_argument("--quantize", choices=MODES, default="none",
                        help="weights: none (fp16), int8, int4 (GPU), palettize4 (Neural Engine)")
    parser.add_argument("--output", type=Path, required=True, help="output folder")
    parser.add_argument("--revision", help="hub revision (branch, tag or commit)")
    parser.add_argument("--overwrite", action="store_true", help="replace a non-empty output")
    parser.add_argument("--multifunction", action="store_true",
                        help="fixed-shape prefill and decode functions sharing weights and "
                             "states (for the Neural Engine)")
    parser.add_argument("--prefill-length", type=int, default=64,
                        help="query length of the prefill function with --multifunction (default 64)")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        # Imported here so that --help works without torch or coremltools installed.
        from statefulchat_convert.pipeline import Options, run

        output = run(Options(source=args.source, output=args.output, context=args.context,
                             quantize=args.quantize, revision=args.revision,
                             overwrite=args.overwrite, multifunction=args.multifunction,
                             prefill_length=args.prefill_length))
    except ConversionError as error:
        print(f"error: {error}", file=sys.stderr)
        return error.exit_code
    print(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
