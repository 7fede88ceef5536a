"""Every map.csv problem is reported with file, line, column, value and a clear message.

Each test copies the base set to ``configs/my`` under a temporary working
directory, breaks the map (or ``rules.toml``) and checks the exact messages
(Z-03, Z-18 to Z-26, P-37, P-50). Line numbers are looked up from the
coordinates so that editing the example map does not break the tests.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from sim.paths import bundled_ruleset
from sim.rules import RulesetError, check_ruleset, load_ruleset

MY = "configs/my"
F = "configs/my/map.csv"


@pytest.fixture
def my(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(bundled_ruleset(), tmp_path / MY)
    return Path(MY)


def read(folder: Path) -> list[list[str]]:
    with (folder / "map.csv").open(encoding="utf-8-sig", newline="") as f:
        return list(csv.reader(f))


def write(folder: Path, rows: list[list[str]]) -> None:
    with (folder / "map.csv").open("w", encoding="utf-8", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)


def line_of(folder: Path, q: int, r: int) -> int:
    """Physical line of hex (q, r); the map has one line per row."""
    rows = read(folder)
    (i,) = [i for i, row in enumerate(rows) if row[:2] == [str(q), str(r)]]
    return i + 1


def named(folder: Path, name: str) -> tuple[int, int, int]:
    """(q, r, line) of the location called ``name``."""
    rows = read(folder)
    (i,) = [i for i, row in enumerate(rows) if row[4] == name]
    return int(rows[i][0]), int(rows[i][1]), i + 1


def set_cell(folder: Path, q: int, r: int, column: str, value: str) -> int:
    line = line_of(folder, q, r)
    rows = read(folder)
    rows[line - 1][rows[0].index(column)] = value
    write(folder, rows)
    return line


def cell(folder: Path, q: int, r: int, column: str) -> str:
    rows = read(folder)
    (row,) = [row for row in rows[1:] if row[:2] == [str(q), str(r)]]
    return row[rows[0].index(column)]


def problems(folder: Path | str) -> list[str]:
    with pytest.raises(RulesetError) as info:
        load_ruleset(folder)
    found = [str(p) for p in info.value.problems]
    assert found == [str(p) for p in check_ruleset(folder)]
    return found


# A plain hex far from roads and locations in the example map: (-7, 3) is on the west edge.
PLAIN = (-7, 3)


def test_base_map_loads(my):
    assert check_ruleset(my) == []
    assert cell(my, *PLAIN, "roads") == "" and cell(my, *PLAIN, "location") == ""


# --- cells (Z-21, Z-18) -----------------------------------------------------------------------


def test_terrain_out_of_range_z21(my):
    line = set_cell(my, *PLAIN, "terrain", "9")
    assert problems(my) == [f"{F}:{line}: column 'terrain': 9 is not in 1..6"]


def test_coordinate_not_an_integer(my):
    line = set_cell(my, *PLAIN, "q", "x")
    assert problems(my) == [f"{F}:{line}: column 'q': 'x' is not an integer"]


def test_location_enum(my):
    line = set_cell(my, *PLAIN, "location", "bunkr")
    assert problems(my) == [
        f"{F}:{line}: column 'location': 'bunkr' is not one of open, secret, complex, bunker,"
        " base, epicentre, sarcophagus (did you mean 'bunker'?)"
    ]


def test_faction_enum(my):
    q, r, line = named(my, "Rostok (Duty)")
    set_cell(my, q, r, "faction", "monolith")
    assert problems(my) == [
        f"{F}:{line}: column 'faction': 'monolith' is not one of duty, freedom, ecologists,"
        " military"
    ]


# --- rows -------------------------------------------------------------------------------------


def test_duplicate_coordinates(my):
    first = line_of(my, *PLAIN)
    rows = read(my)
    rows.append(["-7", "3", "2", "", "", "", "", ""])
    write(my, rows)
    assert problems(my) == [
        f"{F}:{len(rows)}: column 'q': hex (-7, 3) duplicates the hex on line {first}"
    ]


def test_duplicate_location_names(my):
    q, r, first = named(my, "Lab X-18")
    q2, r2, line = named(my, "Lab X-16")
    set_cell(my, q2, r2, "name", "Lab X-18")
    assert problems(my) == [
        f"{F}:{line}: column 'name': 'Lab X-18' duplicates the name on line {first}"
    ]


@pytest.mark.parametrize("kind", ["complex", "bunker", "base", "sarcophagus"])
def test_required_names(my, kind):
    q, r, line = {
        "complex": named(my, "Lab X-16"),
        "bunker": named(my, "Agroprom Bunker"),
        "base": named(my, "Military base"),
        "sarcophagus": named(my, "Sarcophagus"),
    }[kind]
    set_cell(my, q, r, "name", "")
    assert problems(my) == [
        f"{F}:{line}: column 'name': empty cell; location '{kind}' needs a name"
    ]


def test_name_without_location(my):
    line = set_cell(my, *PLAIN, "name", "Nowhere")
    assert problems(my) == [
        f"{F}:{line}: column 'name': 'Nowhere' names no location; leave it empty or set"
        " 'location'"
    ]


def test_faction_only_on_bases(my):
    q, r, line = named(my, "Agroprom Bunker")
    set_cell(my, q, r, "faction", "duty")
    assert problems(my) == [
        f"{F}:{line}: column 'faction': 'duty' must be empty unless location is 'base'"
    ]


def test_base_needs_a_faction(my):
    q, r, line = named(my, "Military base")
    set_cell(my, q, r, "faction", "")
    assert problems(my) == [
        f"{F}:{line}: column 'faction': empty cell; location 'base' needs a faction"
    ]


# --- roads (Z-21, Z-25, Z-26) -----------------------------------------------------------------


@pytest.mark.parametrize(
    "roads, message",
    [
        ("0-7", "'0-7': 7 is not a direction 0..5"),
        ("0-x", "'0-x': 'x' is not a direction 0..5"),
        ("0-3-0", "'0-3-0': direction 0 appears twice"),
        ("0-3;3-5", "'0-3;3-5': direction 3 appears twice"),
        ("0-", "'0-' has an empty direction; write e.g. '0-3' or '0-3;1-4'"),
        ("0-3;", "'0-3;' has an empty direction; write e.g. '0-3' or '0-3;1-4'"),
    ],
)
def test_bad_road_syntax(my, roads, message):
    set_cell(my, *PLAIN, "terrain", "1")
    line = set_cell(my, *PLAIN, "roads", roads)
    assert problems(my) == [f"{F}:{line}: column 'roads': {message}"]


def test_road_leaves_the_map(my):
    set_cell(my, *PLAIN, "terrain", "1")
    line = set_cell(my, *PLAIN, "roads", "3")  # west of the west edge
    assert problems(my) == [
        f"{F}:{line}: column 'roads': direction 3 leads to (-8, 3), which is not on the map"
    ]


def test_road_without_its_other_end(my):
    set_cell(my, *PLAIN, "terrain", "1")
    line = set_cell(my, *PLAIN, "roads", "0")  # (-6, 3) has no road back by direction 3
    assert cell(my, -6, 3, "roads") == ""
    assert problems(my) == [
        f"{F}:{line}: column 'roads': direction 0 leads to (-6, 3) (line {line_of(my, -6, 3)}),"
        " whose roads do not include the opposite direction 3"
    ]


def test_both_ends_of_a_road_are_checked(my):
    q, r, line = named(my, "Lab X-18")  # the end of the Dark Valley road, roads '4'
    set_cell(my, q, r, "roads", "")
    set_cell(my, q, r, "terrain", "2")
    dv_q, dv_r, dv_line = named(my, "Dark Valley")
    assert cell(my, dv_q, dv_r, "roads") == "1-3"
    assert problems(my) == [
        f"{F}:{dv_line}: column 'roads': direction 1 leads to ({q}, {r}) (line {line}), whose"
        " roads do not include the opposite direction 4"
    ]


def test_road_hex_must_be_terrain_1(my):
    q, r, line = named(my, "Cordon")
    set_cell(my, q, r, "terrain", "3")
    assert problems(my) == [
        f"{F}:{line}: column 'terrain': 3 is not 1 (road) but the hex has roads (Z-21, Z-25)"
    ]


def test_terrain_1_without_roads_is_allowed(my):
    # A cost-1 hex with no road through it (a track): no segment, so no change cost (Z-25).
    set_cell(my, *PLAIN, "terrain", "1")
    assert check_ruleset(my) == []


# --- whole map (P-37, P-50) -------------------------------------------------------------------


def test_no_sarcophagus(my):
    q, r, _ = named(my, "Sarcophagus")
    set_cell(my, q, r, "location", "epicentre")
    set_cell(my, q, r, "name", "")
    assert problems(my) == [
        f"{F}: column 'location': no hex is the 'sarcophagus' (exactly one is needed, P-50)"
    ]


def test_second_sarcophagus(my):
    _, _, first = named(my, "Sarcophagus")
    set_cell(my, *PLAIN, "location", "sarcophagus")
    line = set_cell(my, *PLAIN, "name", "Second Sarcophagus")
    assert problems(my) == [
        f"{F}:{line}: column 'location': 'sarcophagus' is a second Sarcophagus (first on line"
        f" {first})"
    ]


def test_no_bunker(my):
    rows = read(my)
    for row in rows[1:]:
        if row[3] == "bunker":
            row[3], row[4] = "open", row[4]
    write(my, rows)
    assert problems(my) == [
        f"{F}: column 'location': no hex is a 'bunker' (P-37 moves an unconscious stalker to the"
        " nearest one)"
    ]


def test_unreachable_objective(my):
    # A complex walled in by terrain 6 with a base allowance of 5 (Z-22, Z-23). (An
    # Epicentre cost above the allowance walls the Sarcophagus off too, but that is
    # rules.toml's fault: tests/rules/test_epicentre_cost_bound.py, issue 43.)
    (my / "rules.toml").write_text("[movement]\nbase_steps = 5\n")
    q, r, line = named(my, "Lab X-16")
    fq, fr, first = named(my, "Lab X-10")  # the first objective in file order
    assert first < line
    for dq, dr in ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)):
        set_cell(my, q + dq, r + dr, "terrain", "6")  # a plain hex, or Yantar Factory
    head = f"{F}:{line}: column 'location': 'Lab X-16' ({q}, {r})"
    tail = f"'Lab X-10' ({fq}, {fr}) (line {first}) with the base allowance of 5 steps (Z-19, Z-22)"
    assert problems(my) == [f"{head} cannot be reached from {tail}", f"{head} cannot reach {tail}"]


def test_walled_in_bunker_is_named(my):
    # Terrain 6 with a base allowance of 5 cannot be entered at all (Z-22, Z-23).
    (my / "rules.toml").write_text("[movement]\nbase_steps = 5\n")
    q, r, line = named(my, "Agroprom Bunker")
    fq, fr, first = named(my, "Lab X-10")
    set_cell(my, q, r, "terrain", "6")
    assert problems(my) == [
        f"{F}:{line}: column 'location': 'Agroprom Bunker' ({q}, {r}) cannot be reached from"
        f" 'Lab X-10' ({fq}, {fr}) (line {first}) with the base allowance of 5 steps (Z-19, Z-22)"
    ]


def test_epicentre_cost_z03(my):
    (my / "rules.toml").write_text("[movement]\nepicentre_cost = 4\n")
    assert problems(my) == [
        "configs/my/rules.toml:2: key 'movement.epicentre_cost': 4 is too low: two Epicentre"
        " hexes must cost more than 9 steps (Z-03), so at least 5"
    ]


def test_epicentre_cost_5_and_other_movement_keys(my):
    (my / "rules.toml").write_text(
        "[movement]\nepicentre_cost = 5\nroad_change_cost = 0\nitems_in_epicentre = true\n"
        "[artifacts]\nmovement_in_epicentre = true\n"  # one Epicentre rule for both (Z-03)
    )
    mv = load_ruleset(my).rules.movement
    assert (mv.base_steps, mv.epicentre_cost, mv.road_change_cost, mv.items_in_epicentre) == (
        6, 5, 0, True
    )


def test_missing_map_file(my):
    (my / "map.csv").unlink()
    assert problems(my) == [f"{F}: file not found"]


def test_all_map_problems_at_once(my):
    set_cell(my, *PLAIN, "terrain", "9")
    q, r, cordon = named(my, "Cordon")
    set_cell(my, q, r, "faction", "duty")
    bq, br, bunker = named(my, "Agroprom Bunker")
    set_cell(my, bq, br, "name", "")
    found = problems(my)
    plain = line_of(my, *PLAIN)
    assert found == sorted(found, key=lambda p: int(p.split(":")[1]))
    assert set(found) == {
        f"{F}:{plain}: column 'terrain': 9 is not in 1..6",
        f"{F}:{cordon}: column 'faction': 'duty' must be empty unless location is 'base'",
        f"{F}:{bunker}: column 'name': empty cell; location 'bunker' needs a name",
    }


def test_map_file_is_part_of_the_digest(my):
    before = load_ruleset(my).digest()
    with (my / "map.csv").open("a", encoding="utf-8") as f:
        f.write("\n")
    assert load_ruleset(my).digest() != before
