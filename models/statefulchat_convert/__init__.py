"""Convert Hugging Face causal LMs into stateful Core ML packages for Stateful Chat.

The runtime (native/ addon) drives these packages with `MLState`; the I/O names and the
cache layout here are the contract it relies on, so they live in one place: `interface.py`.
"""

__version__ = "0.1.0"
