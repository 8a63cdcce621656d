"""Subsampling stability: how often the tier of the full sample holds in random subsamples of ``m`` items.

For each size ``m`` (smaller than the sample), ``n_rep`` subsamples are drawn without replacement (seeded); each is
binarised the way the full sample was (at its own median for ``threshold="median"``, as a researcher with only
``m`` items would), tabulated, and classified with the same rules. ``agreement[m]`` is the share of subsamples
whose tier equals the full sample's. The paper reports clear cases to be stable from 100-150 items, and L to be
unstable for very accurate models (few errors).

Example
-------
>>> import numpy as np
>>> from trainers.screen.stability import subsample_stability
>>> rng = np.random.default_rng(1)
>>> ok = rng.random(400) < 0.7
>>> conf = np.where(ok, rng.normal(80, 10, 400), rng.normal(55, 10, 400)).clip(0, 100)
>>> st = subsample_stability(ok, conf, sizes=(20, 200), n_rep=50)
>>> st.full_tier, st.agreement[200] > st.agreement[20]
('Valid', True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any, Iterable, Sequence

import numpy as np

from .config import ScreenConfig
from .indices import phase_a_indices
from .table import Cells, ScreenInputError, binarise, parse_confidence, parse_correct, parse_threshold
from .tiers import TIERS, classify

__all__ = ["StabilityResult", "subsample_stability"]


@dataclass
class StabilityResult:
    full_tier: str
    n: int
    n_rep: int
    sizes: list[int]
    agreement: dict[int, float]
    tier_shares: dict[int, dict[str, float]] = field(default_factory=dict)

    def summary(self) -> str:
        parts = ", ".join(f"n={m}: {self.agreement[m]:.0%}" for m in self.sizes)
        return f"{self.full_tier} held in {parts} of {self.n_rep} subsamples"

    def to_dict(self) -> dict[str, Any]:
        return {"full_tier": self.full_tier, "n": self.n, "n_rep": self.n_rep, "sizes": list(self.sizes),
                "agreement": {str(k): v for k, v in self.agreement.items()},
                "tier_shares": {str(k): v for k, v in self.tier_shares.items()}}


def _tier(cells: Cells, cfg: ScreenConfig, cache: dict[Cells, str], seed: int, median_split: bool) -> str:
    t = cache.get(cells)
    if t is None:
        ix = phase_a_indices(cells, level=cfg.confidence_level, n_boot=cfg.n_boot, rbs_interval=cfg.rbs_interval,
                             L_threshold=cfg.L_threshold, Fp_threshold=cfg.Fp_threshold,
                             RBS_threshold=cfg.RBS_threshold, TRIN_warning=cfg.TRIN_warning, seed=seed)
        t = classify(cells, ix, cfg, median_split=median_split).tier
        cache[cells] = t
    return t


def subsample_stability(correct: Iterable[Any], confidence: Iterable[Any], *,
                        sizes: Sequence[int] = (50, 100, 150, 200, 300), n_rep: int = 200,
                        threshold: str | float = "median", config: ScreenConfig | None = None, seed: int = 0,
                        scale: str = "auto") -> StabilityResult:
    """How often the full-sample tier holds over ``n_rep`` random subsamples of each size (see module docstring).

    Sizes at or above the sample size are skipped. Vectorised: the subsamples of one size are drawn, binarised and
    tabulated as one array operation; classification is cached per distinct table.
    """
    cfg = config or ScreenConfig()
    thr = parse_threshold(threshold)
    ok, x, binary = _usable_rows(correct, confidence, scale)
    n = ok.size
    if n == 0:
        raise ScreenInputError("no usable rows for the stability analysis")
    if n_rep < 1:
        raise ScreenInputError(f"n_rep={n_rep}: use at least 1 subsample per size")
    tier_of = partial(_tier, cfg=cfg, cache={}, seed=seed, median_split=not binary and thr == "median")
    full = tier_of(Cells.from_arrays(ok, (x == 1.0) if binary else binarise(x, thr)[0]))
    rng = np.random.default_rng(seed)
    used = sorted({int(m) for m in sizes if 0 < int(m) < n})
    agreement: dict[int, float] = {}
    shares: dict[int, dict[str, float]] = {}
    for m in used:
        idx = np.argsort(rng.random((n_rep, n)), axis=1)[:, :m]
        arr = np.asarray([tier_of(cells) for cells in _subsample_tables(ok[idx], x[idx], m, binary, thr)])
        agreement[m] = float(np.mean(arr == full))
        shares[m] = {t: float(np.mean(arr == t)) for t in TIERS}
    return StabilityResult(full_tier=full, n=n, n_rep=n_rep, sizes=used, agreement=agreement, tier_shares=shares)


def _usable_rows(correct: Iterable[Any], confidence: Iterable[Any], scale: str) -> tuple[np.ndarray, np.ndarray, bool]:
    """The rows where both values parse: ``(correct, confidence, whether the confidence is binary)``."""
    ok, v1 = parse_correct(correct)
    pc = parse_confidence(confidence, scale=scale)  # type: ignore[arg-type]
    if ok.size != pc.values.size:
        raise ScreenInputError(f"correct has {ok.size} items but confidence has {pc.values.size}")
    keep = v1 & pc.valid
    return ok[keep], pc.values[keep], pc.format == "binary"


def _subsample_tables(oks: np.ndarray, xs: np.ndarray, m: int, binary: bool, thr: str | float) -> list[Cells]:
    """The 2x2 table of each subsample (one per row of ``oks``/``xs``, ``m`` items each), its confidences split
    at the subsample's own median (or the fixed threshold; 1.0 is high when binary)."""
    if binary:
        hs = xs == 1.0
    elif thr == "median":
        hs = xs >= np.median(xs, axis=1, keepdims=True)
    else:
        hs = xs >= float(thr)
    a = (oks & hs).sum(1)
    b = (~oks & hs).sum(1)
    c = (oks & ~hs).sum(1)
    d = m - a - b - c
    return [Cells(int(a[i]), int(b[i]), int(c[i]), int(d[i])) for i in range(oks.shape[0])]
