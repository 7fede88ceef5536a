"""Common-random-numbers plumbing of the encounter experiments (combat, anomaly, event).

A case is one card or a whole deck weighted by card count; these helpers
stack the cases' packed specs into the padded arrays of
:mod:`sim.kernels.paired` and weight the exact values the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from sim import runner
from sim.errors import InputError
from sim.experiments.base import Case, CompareInputError, Metric
from sim.kernels import paired
from sim.kernels.records import Record


def deck_cards(table: Mapping, names: Sequence[str], which: str) -> list[tuple[str, float]]:
    """``(card, weight)``: one card with weight 1, or a deck weighted by ``count``.

    A deck always holds a card to draw: rulesets without one are refused when
    loaded or edited (:func:`sim.rules.validate.unplayable`).
    """
    if which != "all":
        return [(which, 1.0)]
    total = sum(table[n].count for n in names)
    return [(n, table[n].count / total) for n in names if table[n].count > 0]


def pad_grid(arrays: list[list[np.ndarray]], dtype=np.int64) -> np.ndarray:
    """Stack a V x K grid of arrays into one zero-padded array (V, K, *max shape)."""
    shape = np.max([a.shape for row in arrays for a in row], axis=0)
    n_cards = max(len(row) for row in arrays)
    out = np.zeros((len(arrays), n_cards, *shape), dtype=dtype)
    for v, row in enumerate(arrays):
        for k, a in enumerate(row):
            out[(v, k, *(slice(0, s) for s in a.shape))] = a
    return out


def deck_weights(decks: list[list[tuple[str, float]]]) -> np.ndarray:
    """Each variant's card weights (:func:`deck_cards`), zero-padded to the longest deck."""
    out = np.zeros((len(decks), max(len(d) for d in decks)), dtype=np.float64)
    for v, deck in enumerate(decks):
        out[v, : len(deck)] = [w for _, w in deck]
    return out


def deck_exact(per_card: list[list[np.ndarray]], decks, n_metrics: int) -> np.ndarray:
    """Each variant's exact metrics: its cards' exact values weighted as the deck draws them."""
    out = np.zeros((len(decks), n_metrics))
    for v, deck in enumerate(decks):
        for (_, w), values in zip(deck, per_card[v], strict=True):
            out[v] += w * values[:n_metrics]
    return out


def run_paired(kernel, width: int, trials: int, seed: int, threads, *params,
               cards: bool = False):
    """Run a paired encounter kernel: per variant, the paired sums of ``width`` metrics
    (V, N_SUMS, width).

    With ``cards``, the pair ``(sums, per_card)``: ``per_card`` (V, K, CARD_ROWS, width)
    holds each card's own sum and sum of squares, unweighted (the kernel's per-card rows,
    :mod:`sim.kernels.paired`).
    """
    n_var, n_cards = params[-1].shape  # the weights come last
    rows = paired.N_SUMS + (paired.CARD_ROWS * n_cards if cards else 0)
    out = runner.run_counts(kernel, seed, trials, (n_var, rows, width), *params,
                            threads=threads, dtype=np.float64)
    if not cards:
        return out
    return (np.ascontiguousarray(out[:, :paired.N_SUMS]),
            out[:, paired.N_SUMS:].reshape(n_var, n_cards, paired.CARD_ROWS, width))


NO_EXACT = np.full(max(paired.N_COMBAT_METRICS, paired.N_ANOMALY_METRICS,
                       paired.N_EVENT_METRICS), np.nan)


def in_columns(outcome: Record, metrics: Record,
               declared: Mapping[str, Metric]) -> tuple[Metric, ...]:
    """An encounter's metrics in the order of its paired kernel's columns, read by name.

    ``declared`` gives each column's :class:`Metric` under the column's slot name
    (``"KNOCKED_OUT": Metric("knocked_out", ...)``, ``"C_WOUNDS": Metric("mean_wounds",
    ...)``): the outcome columns first (the kernel's outcome record, ``combat.OUTCOME``:
    each outcome is a code and a column), then the paired kernel's own
    (``paired.COMBAT_METRIC``, which begins where the outcomes end). The order of
    :attr:`PairedSums.metrics` is thus the kernels' declaration, not a second list
    written in the same order.

    Raises
    ------
    ValueError
        A column without a metric, a metric of no column, or a metrics record that does
        not begin where the outcomes end.
    """
    columns = (*outcome.slots, *metrics.slots)
    if metrics.start != outcome.size or set(declared) != set(columns):
        raise ValueError(f"the metrics of {outcome.title} and {metrics.title} are declared "
                         f"for {sorted(declared)}, the columns are {list(columns)}")
    return tuple(declared[column] for column in columns)


def exact_row(metrics: Sequence[Metric], values: Mapping[str, float]) -> np.ndarray:
    """Exact values by metric name (``{"knocked_out": 0.13, ...}``) in ``metrics`` order."""
    return np.asarray([values[m.name] for m in metrics], dtype=float)


def single_cards(decks) -> bool:
    """Whether every variant meets one card (weight 1), not a deck."""
    return all(len(d) == 1 and d[0][1] == 1.0 for d in decks)


LOADOUT_KEYS = {"stalker": ("stalker", "str"), "armor": ("armor", "optional"),
            "item": ("items", "list"), "artifacts": ("artifacts", "list"),
            "intellect": ("intellect", "int")}


STATE_KEYS = {"health": ("health", "positive"), "willpower": ("willpower", "positive"),
          "radiation": ("radiation", "int"), "tokens": ("tokens", "int")}


def deck_cases(cases: Sequence[Case], key: str, table_of: Callable, names_of: Callable,
               compile_card: Callable, exact_of: Callable, exact: bool
               ) -> tuple[list, list, list]:
    """Compile every case's card or deck: ``(decks, packed specs, exact values)``.

    ``key`` is the setup key naming the card (``anomaly``, ``event``);
    ``table_of(rs)`` its card table, ``names_of(rs, which)`` the cards of
    ``which`` (a card or ``all``), ``compile_card(rs, setup, name)`` one spec
    and ``exact_of(spec)`` its exact metric values (NaN without ``exact``).
    An input error of a card becomes a :class:`CompareInputError`.
    """
    decks, packs, exacts = [], [], []
    for case in cases:
        s, rs = case.setup, case.ruleset
        which, table = str(s[key]), table_of(rs)
        if which != "all" and which not in table:
            raise CompareInputError(f"unknown {key} {which!r} (known: {', '.join(table)})")
        deck = deck_cards(table, names_of(rs, which), which)
        try:
            specs = [compile_card(rs, s, name) for name, _ in deck]
        except InputError as error:
            raise CompareInputError(str(error)) from None
        decks.append(deck)
        packs.append([sp.pack() for sp in specs])
        exacts.append([exact_of(sp) if exact else NO_EXACT for sp in specs])
    return decks, packs, exacts
