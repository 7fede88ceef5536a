"""docs/rules.md names the files the ruleset digest hashes as the loader reads them (issue 46,
item 7): the card tables it lists are :data:`sim.rules.schema.TABLES`, and the number it
spells is theirs, so adding a table without the doc fails here.
"""

from __future__ import annotations

import re
from pathlib import Path

from sim.rules.loader import FILES, MAP, RULES_FILE
from sim.rules.schema import TABLES

DOCS = Path(__file__).resolve().parents[2] / "docs"
NUMBERS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen")


def _ruleset_api() -> str:
    text = (DOCS / "rules.md").read_text(encoding="utf-8")
    return text.split("### File format")[0]


def test_the_doc_lists_every_card_table_the_loader_reads():
    listed = re.search(r"- Tables \((.*?)\) are read-only", _ruleset_api(), re.S).group(1)
    assert re.findall(r"`rs\.(\w+)`", listed) == list(TABLES)


def test_the_doc_counts_the_card_files_the_digest_hashes():
    said = re.search(r"The digest hashes `rules\.toml`, the (\w+) card CSVs", _ruleset_api())
    assert NUMBERS.index(said.group(1)) + 10 == len(TABLES)
    assert FILES == (RULES_FILE, *(f"{t}.csv" for t in TABLES), f"{MAP}.csv")
