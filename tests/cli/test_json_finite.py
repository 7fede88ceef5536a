"""Every JSON document is strict JSON: no ``NaN``, ``Infinity`` or ``-Infinity`` (issue 43, 3).

``zonesim combat --format json`` printed ``"exact": -Infinity`` for a best-play objective
of huge weights; ``metadata.json`` raised a traceback on an infinite number. Non-finite
numbers are now ``null`` (:mod:`sim.jsontext`), the JSON writers print through it, and a
strict parser reads every document.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np

from sim.cli.common import dumps
from sim.report.writer import write_json

SIM = Path(__file__).resolve().parents[2] / "sim"


def strict(text: str):
    """``text`` read by a JSON parser that refuses NaN and infinities, as strict readers do."""
    def refuse(name):
        raise ValueError(f"not JSON: {name}")

    return json.loads(text, parse_constant=refuse)


DOC = {"mc": math.inf, "exact": -math.inf, "ci": [math.nan, 0.25],
       "numpy": np.float64(-np.inf), "nested": {"t": (np.float32(np.nan), 1)}, "n": 3}
WANTED = {"mc": None, "exact": None, "ci": [None, 0.25], "numpy": None,
          "nested": {"t": [None, 1]}, "n": 3}


def test_the_printed_json_has_null_for_every_number_that_is_not_finite():
    assert strict(dumps(DOC)) == WANTED


def test_a_written_json_file_has_null_for_every_number_that_is_not_finite(tmp_path):
    path = write_json(DOC, tmp_path / "metadata.json")
    assert strict(path.read_text(encoding="utf-8")) == WANTED


def test_every_json_writer_goes_through_the_strict_one():
    """No module writes JSON but :mod:`sim.jsontext`: a new ``json.dumps`` elsewhere would
    bring ``NaN`` back."""
    calls = [str(p.relative_to(SIM)) for p in SIM.rglob("*.py")
             if re.search(r"\bjson\.dumps?\(", p.read_text(encoding="utf-8"))]
    assert calls == ["jsontext.py"]
