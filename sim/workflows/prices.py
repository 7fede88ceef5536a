"""Prices in comparisons: what each variant's cards cost, and the change per 1,000 rubles.

A designer asks "is the SEVA suit worth its price?" The price of a variant is
the sum of the ``price`` column of every card its setup carries (armour,
weapons, items, artefacts; copies count again), read from the variant's own
ruleset, so a price edit or a ``rules=DIR`` folder is respected. A
comparison row then shows the variant's ``price``, the ``price_diff`` to the
variant its difference is taken to, and the paired difference per 1,000
rubles of that price difference (``diff_per_1000`` with its 95 % interval:
the price difference is a constant, so the interval scales alike). In a
campaign the starting rubles count as part of what a variant is given
(:func:`wealth`), so a variant with 5,000 extra rubles has a price difference
of 5,000, and one that paid for its cards (``--pay``) has none.

Two campaign modes put money and cards on one scale:

- :func:`pay_variants` (``--pay``): a variant's extra cards are paid for out of
  the starting rubles (its rubles are the baseline's less the price
  difference); a variant the stalker cannot afford is refused, by name.
- :func:`cash_variants` (``--cash-equivalent``): next to each card variant, a
  variant that keeps the baseline's cards and gets the price difference in
  extra starting rubles, answering "is the Jetpack worth 5,000 rubles?".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

from sim.experiments.base import Case, CompareInputError
from sim.rules import Ruleset

PAY = "pay"
CASH = "cash"
MONEY_MODES = (PAY, CASH)
"""Campaign money modes of :func:`money_variants`."""

PRICED_KEYS = {"armor": "armor", "weapons": "weapons", "items": "items",
               "artifacts": "artifacts"}
"""Setup key -> ruleset table of the cards a variant carries (and pays for)."""

PER_1000_RUBLES = ("per 1,000 rubles: the paired difference times 1,000, divided by the "
                   "difference in price (against carrying none: the card's price; in a campaign "
                   "the starting rubles count too), its 95 % interval scaled alike")
"""The one definition of "per 1,000 rubles", said wherever such a number is shown."""
PRICE_KEYS = ("price", "price_diff", "diff_per_1000", "diff_per_1000_ci_low",
              "diff_per_1000_ci_high")
"""Keys :func:`priced_rows` adds to a comparison row."""


def loadout_price(rs: Ruleset, setup: Mapping[str, object]) -> int | None:
    """Rubles of every card in ``setup`` (armour, weapons, items, artefacts) on ``rs``.

    None if a card is not in the ruleset (the experiment reports it).
    """
    total = 0
    for key, table in PRICED_KEYS.items():
        value = setup.get(key)
        names = () if value is None else (value,) if isinstance(value, str) else value
        cards = getattr(rs, table)
        for name in names:
            if name not in cards:
                return None
            total += int(cards[name].price)
    return total


def wealth(case: Case) -> int | None:
    """What a variant is given, in rubles: its cards' price, plus its starting rubles in a
    campaign (so a cash-equivalent variant is priced by its extra money).
    """
    price = loadout_price(case.ruleset, case.setup)
    if price is None or "rubles" not in case.setup:
        return price
    return price + start_rubles(case)


def priced_rows(rows: Sequence[dict], prices: Mapping[str, int | None],
                reference: str, worth: Mapping[str, int | None] | None = None) -> list[dict]:
    """Rows with their variant's price and the difference per 1,000 rubles.

    Parameters
    ----------
    rows : sequence of dict
        Comparison rows (``variant``, ``diff``, ``diff_ci_low``, ``diff_ci_high``,
        and ``against`` when the difference is taken to another variant).
    prices : mapping
        Variant label -> :func:`loadout_price`.
    reference : str
        The label differences are taken to when a row has no ``against``.
    worth : mapping, optional
        Variant label -> :func:`wealth`, whose difference ``price_diff`` the
        change is divided by (default: ``prices``).

    Returns
    -------
    list of dict
        Copies with :data:`PRICE_KEYS`; the per-1,000 keys are None where the
        price difference is 0 or unknown.
    """
    worth = prices if worth is None else worth
    out = []
    for row in rows:
        price = prices.get(row["variant"])
        mine, base = worth.get(row["variant"]), worth.get(row.get("against", reference))
        change = None if mine is None or base is None else mine - base
        per = [None, None, None]
        if change:
            scaled = [row[k] * 1000 / change + 0.0  # no -0.0
                      for k in ("diff", "diff_ci_low", "diff_ci_high")]
            per = [scaled[0], *sorted(scaled[1:])]
        out.append({**row, "price": price, "price_diff": change, "diff_per_1000": per[0],
                    "diff_per_1000_ci_low": per[1], "diff_per_1000_ci_high": per[2]})
    return out


def start_rubles(case: Case) -> int:
    """The starting money of a campaign case: its ``rubles``, else its stalker card's."""
    rubles = case.setup.get("rubles")
    if rubles is not None:
        return int(rubles)
    stalker = str(case.setup["stalker"])
    if stalker not in case.ruleset.stalkers:
        raise CompareInputError(f"stalker {stalker!r} is not in the ruleset")
    return int(case.ruleset.stalkers[stalker].rubles)


def _price_or_fail(case: Case, label: str) -> int:
    price = loadout_price(case.ruleset, case.setup)
    if price is None:
        raise CompareInputError(f"variant {label!r}: a card it carries is not in the ruleset")
    return price


def money_variants(mode: str, variants: Sequence[Any], runs: Sequence[Case]) -> list[Any]:
    """The variants of a money mode: :data:`PAY` or :data:`CASH` (see the module notes).

    ``variants`` are :class:`sim.workflows.compare.Variant` and ``runs`` their
    cases; the setups must have ``rubles`` (a campaign).
    """
    if "rubles" not in runs[0].setup:
        raise CompareInputError("paying for cards and cash equivalents need starting "
                                "rubles: compare campaigns")
    return pay_variants(variants, runs) if mode == PAY else cash_variants(variants, runs)


def pay_variants(variants: Sequence[Any], runs: Sequence[Case]) -> list[Any]:
    """``--pay``: every variant pays its extra cards out of its starting rubles.

    A variant's rubles become its starting money less the price difference to
    the baseline (variant 0), so a dearer loadout starts poorer (and a cheaper
    one richer).

    Raises
    ------
    CompareInputError
        Naming every variant the stalker cannot afford, with its price and money.
    """
    base_price = _price_or_fail(runs[0], variants[0].label)
    out, broke = [variants[0]], []
    for variant, case in zip(variants[1:], runs[1:], strict=True):
        change = _price_or_fail(case, variant.label) - base_price
        money = start_rubles(case)
        if change > money:
            broke.append(f"{variant.label!r} costs {change:,} rubles more than the baseline "
                         f"and the stalker starts with {money:,}")
        out.append(dataclasses.replace(
            variant, overrides=(*variant.overrides, ("rubles", money - change))))
    if broke:
        raise CompareInputError("cannot afford (--pay): " + "; ".join(broke))
    return out


def cash_variants(variants: Sequence[Any], runs: Sequence[Case]) -> list[Any]:
    """``--cash-equivalent``: after each dearer variant, the baseline with its price in cash.

    The cash variant keeps the baseline's cards, edits and folder and starts
    with the baseline's rubles plus the variant's price difference; it is
    labelled ``<label> as cash (+N rubles)``, its ``cash_of`` the card
    variant's label (the comparison adds the row "card minus its cash").
    Variants that cost no more than the baseline get none.
    """
    base, base_case = variants[0], runs[0]
    base_price = _price_or_fail(base_case, base.label)
    money = start_rubles(base_case)
    out = [base]
    for variant, case in zip(variants[1:], runs[1:], strict=True):
        out.append(variant)
        change = _price_or_fail(case, variant.label) - base_price
        if change > 0:
            out.append(dataclasses.replace(
                base, label=f"{variant.label} as cash (+{change:,} rubles)",
                overrides=(*base.overrides, ("rubles", money + change)),
                cash_of=variant.label))
    return out


__all__ = ["CASH", "MONEY_MODES", "PAY", "PER_1000_RUBLES", "PRICED_KEYS", "PRICE_KEYS",
           "cash_variants", "loadout_price", "money_variants", "pay_variants", "priced_rows",
           "start_rubles",
           "wealth"]
