"""The k-means palette used by --quantize palettize4."""

import numpy as np

from statefulchat_convert import palette


def _error(weight, lut, indices):
    return float(np.mean((lut[indices].astype(np.float64) - weight.reshape(-1)) ** 2))


def test_few_distinct_values_are_kept_exactly():
    weight = np.array([[0.5, -1.0, 0.5], [2.0, 0.25, -1.0]], dtype=np.float16)
    lut, indices = palette.lut_function(weight)
    assert lut.shape == (16,) and lut.dtype == np.float16
    assert np.array_equal(lut[indices], weight.reshape(-1))


def test_beats_a_uniform_palette_on_gaussian_weights():
    weight = np.random.default_rng(0).standard_normal((16, 576)).astype(np.float16)
    lut, indices = palette.lut_function(weight)
    assert indices.dtype == np.uint8 and indices.max() < 16
    assert len(indices) == weight.size
    uniform = np.linspace(weight.min(), weight.max(), 16)
    nearest = np.abs(weight.reshape(-1, 1).astype(np.float64) - uniform).argmin(axis=1)
    assert _error(weight, lut, indices) < 0.7 * _error(weight, uniform, nearest)
    # Every value maps to its nearest palette entry (a Lloyd fixed point).
    best = np.abs(weight.reshape(-1, 1).astype(np.float64) - lut.astype(np.float64)).min(axis=1)
    chosen = np.abs(weight.reshape(-1).astype(np.float64) - lut[indices].astype(np.float64))
    assert np.allclose(best, chosen, atol=1e-3)
