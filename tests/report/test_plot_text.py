"""Names in plots are text, never mathtext (issue 43, item 5).

Card names come from the designer's CSV files, and matplotlib reads the text
between two ``$`` as TeX maths: ``$x$`` would be drawn as an italic x and a
name such as ``$^$`` stops the figure with a parse error. Every figure the
report, ``levers`` and ``sweep`` draw (:mod:`sim.report.plots`,
:mod:`sim.report.levers`) must draw each name as written: each such figure is
drawn and saved here and its Text objects are inspected.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from matplotlib.text import Text

from sim.report import levers as lever_plots
from sim.report import plots

NAMES = ["$5 offer", "$x$", "$^$ broken", "a \\$ b $c$"]
"""A price in a name, a name that is valid maths, one that is not, an escaped dollar."""


def _interval(frame: pd.DataFrame, metric: str, values) -> pd.DataFrame:
    values = np.asarray(values, dtype=float)
    frame[metric] = values
    frame[f"{metric}_ci_low"] = values - 0.01
    frame[f"{metric}_ci_high"] = values + 0.01
    return frame


def _texts(figure) -> list[Text]:
    """Every text the saved figure holds (drawing it first realises the ticks)."""
    assert plots.png_bytes(figure)[:4] == b"\x89PNG"
    return [t for t in figure.findobj(Text) if t.get_text()]


def _drawn(text: Text) -> str:
    """The string matplotlib draws for ``text``, as its own renderer decides it."""
    shown, math = text._preprocess_math(text.get_text())
    assert not math, f"{text.get_text()!r} is drawn as mathtext"
    return shown


def _assert_names_drawn(figure, names=NAMES) -> None:
    drawn = [_drawn(t) for t in _texts(figure)]
    for name in names:
        assert any(name in s for s in drawn), (name, drawn)


def _cards() -> pd.DataFrame:
    frame = pd.DataFrame({"enemy": NAMES})
    return _interval(frame, "knocked_out", [0.1, 0.2, 0.3, 0.4])


def test_bars_draw_names_as_text():
    figure = plots.bars(_cards(), "enemy", "knocked_out", f"Deck of {NAMES[0]} and {NAMES[1]}")
    _assert_names_drawn(figure)
    assert any(_drawn(t) == f"Deck of {NAMES[0]} and {NAMES[1]}" for t in _texts(figure))


def test_signed_bars_and_comparison_draw_names_as_text():
    frame = _cards().rename(columns={"enemy": "artifact"})
    frame = _interval(frame, "diff", [-0.1, 0.1, 0.0, 0.2]).assign(diff_exact=np.nan)
    panels = [("diff", "diff_ci_low", "diff_ci_high", "diff_exact", "change of $x$")]
    _assert_names_drawn(plots.signed_bars(frame, "artifact", panels, "$x$ artefacts"),
                        [*NAMES, "change of $x$", "$x$ artefacts"])
    _assert_names_drawn(plots.comparison(frame.rename(columns={"artifact": "variant"}),
                                         ["knocked_out"], "$5 offer items"))


def test_tornado_and_morris_draw_names_as_text():
    paths = [f"items.{n}.price" for n in NAMES]
    ranking = pd.DataFrame({"path": paths, "current": 100.0, "down_value": 50.0,
                            "up_value": 150.0})
    for side in ("down", "up"):
        _interval(ranking, f"{side}_diff", [0.01, -0.02, 0.03, 0.0])
    _assert_names_drawn(lever_plots.tornado(ranking, "knocked_out", 0.25), paths)
    morris = pd.DataFrame({"path": paths, "mu_star": [0.1, 0.2, 0.3, 0.4],
                           "mu_star_conf": 0.01, "sigma": 0.05})
    _assert_names_drawn(lever_plots.morris_chart(morris, "knocked_out"), paths)


@pytest.mark.parametrize("cells", [1, 2])
def test_sweep_figures_draw_names_as_text(cells):
    paths = ["enemies.$x$.endurance", "enemies.$5 offer.attack"][:cells]
    rows = [{"enemy": name, paths[0]: a, **({paths[1]: b} if cells == 2 else {})}
            for name in NAMES for a in (2, 3) for b in ((4, 5) if cells == 2 else (0,))]
    frame = _interval(pd.DataFrame(rows), "knocked_out", np.linspace(0.1, 0.9, len(rows)))
    result = SimpleNamespace(frame=frame, parameter_columns=paths)
    _assert_names_drawn(plots.sweep_figure(result, "knocked_out"), [*NAMES, *paths])


def test_every_text_of_a_figure_is_text():
    """Nothing a figure holds is parsed as maths, tick labels made while drawing included."""
    figure = plots.bars(_cards(), "enemy", "knocked_out", "$x$")
    _texts(figure)
    assert not any(t.get_parse_math() for t in figure.findobj(Text))
