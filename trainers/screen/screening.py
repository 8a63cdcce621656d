"""The two entry points: :func:`screen` (one group) and :func:`screen_groups` (a table with a group column).

Example
-------
>>> from trainers.screen import screen
>>> correct = [True] * 150 + [False] * 50
>>> confidence = [90.0] * 120 + [40.0] * 30 + [90.0] * 10 + [40.0] * 40      # 0-100, binarised at the median
>>> res = screen(correct, confidence)
>>> res.tier, res.cells, round(res.L.value, 2), round(res.Fp.value, 2)
('Valid', Cells(a=120, b=10, c=30, d=40), 0.2, 0.2)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Literal, Sequence

import numpy as np

from .config import ScreenConfig
from .indices import phase_a_indices
from .phase_b import phase_b_metrics
from .report import ScreenResult
from .table import Cells, ScreenInputError, binarise, parse_confidence, parse_correct, parse_threshold
from .tiers import classify

__all__ = ["screen", "screen_groups", "load_table"]

Scale = Literal["auto", "unit", "percent", "binary"]


def _screen_clean(ok: np.ndarray, conf: np.ndarray, fmt: str, *, n_dropped: int, threshold: str | float,
                  cfg: ScreenConfig, seed: int, group: str | None, phase_b: bool,
                  metadata: dict[str, Any] | None) -> ScreenResult:
    """Screen arrays already parsed and cleaned: ``ok`` bool, ``conf`` floats in [0, 1] (0/1 when binary)."""
    n = int(ok.size)
    if n == 0:
        where = f" in group {group!r}" if group is not None else ""
        raise ScreenInputError(f"no usable rows{where}: every row was missing or dropped ({n_dropped} dropped); "
                               "check the correctness and confidence values")
    if fmt == "binary":
        high = conf == 1.0
        rule, thr_used = "binary", None
    else:
        high, thr_used = binarise(conf, threshold)
        rule = "median" if threshold == "median" else "fixed"
    cells = Cells.from_arrays(ok, high)
    ix = phase_a_indices(cells, conf, ok, level=cfg.confidence_level, n_boot=cfg.n_boot,
                         rbs_interval=cfg.rbs_interval, L_threshold=cfg.L_threshold, Fp_threshold=cfg.Fp_threshold,
                         RBS_threshold=cfg.RBS_threshold, TRIN_warning=cfg.TRIN_warning, seed=seed)
    decision = classify(cells, ix, cfg, median_split=rule == "median")
    pb = None
    if phase_b and (decision.tier == "Valid" or (decision.tier == "Indeterminate" and cfg.phase_b_for_indeterminate)):
        caveat = None
        if decision.tier == "Indeterminate":
            caveat = "Indeterminate signal: interpret Phase B with caution (" + decision.reasons[0] + ")"
        pb = phase_b_metrics(ok, conf, probability_scale=fmt != "binary", ece_bins=cfg.ece_bins,
                             coverages=cfg.coverages, caveat=caveat)
    reasons = list(decision.reasons)
    if n_dropped:
        reasons.append(f"{n_dropped} row{'s' if n_dropped != 1 else ''} dropped as missing or unparseable")
    if decision.tier == "Invalid":
        reasons.append("Phase B not run: an Invalid signal must not be interpreted")
    return ScreenResult(
        group=group, n=n, n_dropped=int(n_dropped), accuracy=float(ok.mean()), cells=cells,
        L=ix["L"], Fp=ix["Fp"], RBS=ix["RBS"], TRIN=ix["TRIN"], r=ix["r"], r_phi=ix["r_phi"], tier=decision.tier,
        reasons=reasons, warnings=list(decision.warnings), response_style=decision.response_style,
        fragility=list(decision.fragility),
        phase_b=pb, confidence_format=fmt, threshold_rule=rule, threshold=thr_used, config=cfg, seed=seed,
        metadata=dict(metadata or {}),
    )


def screen(correct: Iterable[Any], confidence: Iterable[Any], *, threshold: str | float = "median",
           config: ScreenConfig | None = None, seed: int = 0, scale: Scale = "auto", group: str | None = None,
           drop_unparseable: bool = False, phase_b: bool = True,
           metadata: dict[str, Any] | None = None) -> ScreenResult:
    """Screen one confidence signal (one model, one checkpoint) for validity.

    Parameters
    ----------
    correct:
        Per item: booleans, 0/1, or true/false strings.
    confidence:
        Per item: booleans, KEEP/WITHDRAW, BET/NO BET, high/low, or numbers in [0, 1] or [0, 100].
    threshold:
        ``"median"`` (default; high means >= the median of this group, the authors' convention) or a fixed
        number in [0, 1] (or a percentage in (1, 100]). Ignored for binary confidence.
    config:
        Thresholds and interval settings (:class:`ScreenConfig`).
    seed:
        Seed of the bootstrap intervals.
    scale:
        ``"auto"`` detects binary / [0, 1] / [0, 100]; force one if the data is ambiguous.
    drop_unparseable:
        Drop (and count in ``n_dropped``) values that are not a label, instead of raising. Missing values (None,
        NaN, "") are always dropped and counted.
    phase_b:
        Compute Phase B (AUROC, ECE, Brier, AURC, selective gain, meta-d') for Valid and Indeterminate signals.

    Returns a :class:`ScreenResult`; every non-empty table gets a tier (few errors or empty cells give wide
    intervals and an Indeterminate tier, never an exception). Raises :class:`ScreenInputError` for input it cannot
    read (lengths differ, unknown strings, nothing left after dropping missing rows).

    >>> res = screen([True, False] * 50, [95, 95] * 50)      # blanket confidence: every answer kept
    >>> res.tier, res.response_style, res.L.value
    ('Invalid', 'blanket confidence', 1.0)
    """
    cfg = config or ScreenConfig()
    thr = parse_threshold(threshold)
    ok, v1 = parse_correct(correct, drop_unparseable=drop_unparseable)
    pc = parse_confidence(confidence, scale=scale, drop_unparseable=drop_unparseable)
    if ok.size != pc.values.size:
        raise ScreenInputError(f"correct has {ok.size} items but confidence has {pc.values.size}; "
                               "pass one confidence per item")
    keep = v1 & pc.valid
    return _screen_clean(ok[keep], pc.values[keep], pc.format, n_dropped=int((~keep).sum()), threshold=thr,
                         cfg=cfg, seed=seed, group=group, phase_b=phase_b, metadata=metadata)


def load_table(data: Any, columns: Sequence[str]) -> Any:
    """Read a DataFrame or a CSV path (all columns as strings) and check that ``columns`` exist."""
    import pandas as pd

    if isinstance(data, (str, Path)):
        path = Path(data)
        if not path.exists():
            raise ScreenInputError(f"{path}: no such file")
        try:
            df = pd.read_csv(path, dtype=str, keep_default_na=False)
        except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as e:
            raise ScreenInputError(f"{path}: cannot read as CSV ({str(e).splitlines()[0]})") from None
        name = str(path)
    elif isinstance(data, pd.DataFrame):
        df = data
        name = "the DataFrame"
    else:
        raise ScreenInputError(f"data must be a pandas DataFrame or a CSV path, not {type(data).__name__}")
    for col in columns:
        if col not in df.columns:
            cols = ", ".join(map(str, df.columns))
            raise ScreenInputError(f"column {col!r} not in {name} (columns: {cols})")
    return df


def screen_groups(data: Any, correct_col: str, confidence_col: str, group_col: str | Sequence[str] | None = None,
                  *, threshold: str | float = "median", config: ScreenConfig | None = None, seed: int = 0,
                  scale: Scale = "auto", drop_unparseable: bool = False, phase_b: bool = True,
                  metadata: dict[str, Any] | None = None) -> list[ScreenResult]:
    """Screen every group of a DataFrame or CSV in one call (per model, per checkpoint, per domain).

    The confidence scale is detected over the whole column (so a model whose answers happen to be 0 or 1 on a
    0-100 column is still read as percent); the median threshold is taken within each group. Groups keep the
    order of their first appearance; a missing group value forms the group ``"<missing>"``. The input is never
    modified.

    >>> import pandas as pd
    >>> df = pd.DataFrame({"ok": [True, False] * 60, "conf": [90, 40] * 60, "m": ["x"] * 60 + ["y"] * 60})
    >>> [(r.group, r.tier) for r in screen_groups(df, "ok", "conf", "m")]
    [('x', 'Valid'), ('y', 'Valid')]
    """
    cfg = config or ScreenConfig()
    thr = parse_threshold(threshold)
    gcols = [group_col] if isinstance(group_col, str) else list(group_col or [])
    df = load_table(data, [correct_col, confidence_col, *gcols])
    ok, pc, keep = _parsed_columns(df, correct_col, confidence_col, scale, drop_unparseable)
    if not gcols:
        return [_screen_clean(ok[keep], pc.values[keep], pc.format, n_dropped=int((~keep).sum()), threshold=thr,
                              cfg=cfg, seed=seed, group=None, phase_b=phase_b, metadata=metadata)]
    codes, uniques = _group_codes(df, gcols)
    results = []
    for gi, name in enumerate(uniques):
        rows = codes == gi
        sel = rows & keep
        results.append(_screen_clean(ok[sel], pc.values[sel], pc.format, n_dropped=int((rows & ~keep).sum()),
                                     threshold=thr, cfg=cfg, seed=seed, group=str(name), phase_b=phase_b,
                                     metadata=metadata))
    return results


def _parsed_columns(df, correct_col: str, confidence_col: str, scale: Scale, drop_unparseable: bool):
    """``(correct, parsed confidence, which rows are usable)`` from the two columns, the confidence scale detected
    over the whole column."""
    ok, v1 = parse_correct(df[correct_col].to_numpy(), field_name=f"column {correct_col!r}",
                           drop_unparseable=drop_unparseable)
    pc = parse_confidence(df[confidence_col].to_numpy(), scale=scale, field_name=f"column {confidence_col!r}",
                          drop_unparseable=drop_unparseable)
    return ok, pc, v1 & pc.valid


def _group_codes(df, gcols: list[str]):
    """Each row's group code and the groups' names, in order of first appearance (a missing or empty value is
    ``"<missing>"``; several group columns are joined with " / ")."""
    labels = df[gcols].astype(object).where(df[gcols].notna(), "<missing>").astype(str)
    labels = labels.replace("", "<missing>")
    key = labels.iloc[:, 0] if len(gcols) == 1 else labels.agg(" / ".join, axis=1)
    return key.factorize(sort=False)
