"""Write `tokenizer.json` and `tokenizer_config.json` beside the package.

The runtime's TypeScript tokenizer reads exactly these two files, so the chat template must
be inside tokenizer_config.json (recent transformers may put it in a separate .jinja file).
"""

import json
import shutil
import tempfile
from pathlib import Path

FILES = ("tokenizer.json", "tokenizer_config.json")
# End-of-turn markers of the ChatML and Llama 3 templates.
_CHAT_END_TOKENS = ("<|im_end|>", "<|eot_id|>")


def save(tokenizer, directory: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        tokenizer.save_pretrained(scratch)
        scratch = Path(scratch)
        shutil.copyfile(scratch / "tokenizer.json", directory / "tokenizer.json")
        config_path = scratch / "tokenizer_config.json"
        config = json.loads(config_path.read_text(encoding="utf-8"))
    template = getattr(tokenizer, "chat_template", None)
    if template:
        config["chat_template"] = template
    (directory / "tokenizer_config.json").write_text(
        json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def special_token_ids(tokenizer, config) -> dict:
    """Stop tokens gathered from every place models declare them: GGUF-derived tokenizers
    and configs disagree (SmolLM2's GGUF says <|im_start|> in one and <|im_end|> in the
    other), and stopping on either is what a chat needs."""
    eos = set()
    for value in (getattr(config, "eos_token_id", None), tokenizer.eos_token_id):
        if isinstance(value, int):
            eos.add(value)
        elif isinstance(value, (list, tuple)):
            eos.update(v for v in value if isinstance(v, int))
    vocab = tokenizer.get_vocab()
    for token in _CHAT_END_TOKENS:
        if token in vocab:
            eos.add(vocab[token])
    return {"bos_token_id": tokenizer.bos_token_id, "eos_token_ids": sorted(eos),
            "pad_token_id": tokenizer.pad_token_id}
