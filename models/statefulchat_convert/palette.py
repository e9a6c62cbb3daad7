"""1-D weighted k-means for 4-bit palettization, as a coremltools "custom" LUT function.

coremltools' own "kmeans" mode runs scikit-learn's KMeans once per group of 16 channels
(thousands of groups even for a 135M model: minutes on two cores), or kmeans1d through
a keyword that kmeans1d 0.5 no longer accepts. Weights are fp16, so each group has only a
few thousand distinct values: Lloyd's algorithm over the distinct values, weighted by
their counts, converges in a few vectorized passes and gives the same kind of palette.
"""

import numpy as np

NBITS = 4
_MAX_ITERATIONS = 30


def _assign(values: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    # In one dimension the nearest centroid is found by the midpoints between sorted ones.
    return np.searchsorted((centroids[1:] + centroids[:-1]) / 2, values)


def lut_function(weight: np.ndarray):
    """Return (lut[16], indices[uint8]) for one group of weights."""
    k = 1 << NBITS
    values, inverse, counts = np.unique(weight.reshape(-1), return_inverse=True,
                                        return_counts=True)
    lut = np.zeros(k, dtype=np.float64)
    if len(values) <= k:
        lut[: len(values)] = values
        return lut.astype(weight.dtype), inverse.reshape(-1).astype(np.uint8)

    v = values.astype(np.float64)
    w = counts.astype(np.float64)
    # Start at weighted quantiles: dense regions get more centroids from the first pass.
    cumulative = np.cumsum(w)
    targets = (np.arange(k) + 0.5) / k * cumulative[-1]
    centroids = v[np.minimum(np.searchsorted(cumulative, targets), len(v) - 1)]
    for _ in range(_MAX_ITERATIONS):
        labels = _assign(v, centroids)
        mass = np.bincount(labels, weights=w, minlength=k)
        sums = np.bincount(labels, weights=v * w, minlength=k)
        # An emptied cluster keeps its centroid rather than collapsing to zero.
        updated = np.sort(np.where(mass > 0, sums / np.maximum(mass, 1e-300), centroids))
        if np.array_equal(updated, centroids):
            break
        centroids = updated
    labels = _assign(v, centroids)
    return centroids.astype(weight.dtype), labels[inverse.reshape(-1)].astype(np.uint8)
