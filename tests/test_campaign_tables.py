"""The compiled scenario's tables are declared once (issue 28, section 1, "Records"):
:class:`sim.kernels.campaign.CampaignTables` names them, the compile step's
``CampaignArrays`` is generated from it, and the kernel's ``slot`` (written out, as numba
needs) passes every field in that order, as ``seat`` passes every field of a game's
:class:`sim.kernels.campaign.GameState`."""

from __future__ import annotations

import ast
import dataclasses
import inspect

from sim.campaign.compile import CampaignArrays, compile_campaign
from sim.kernels import campaign as K
from sim.rules.scenario import load_scenario


def _slot_fields(source: str) -> list[str]:
    """The fields ``slot`` reads, in the order it passes them to ``CampaignTables``."""
    [call] = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
              and getattr(n.func, "id", "") == "CampaignTables"]
    return [arg.value.attr for arg in call.args]


def test_the_compile_step_arrays_are_the_kernel_tables_fields():
    assert tuple(f.name for f in dataclasses.fields(CampaignArrays)) == K.CampaignTables._fields
    arrays = compile_campaign(load_scenario("base"))
    packed = arrays.pack()
    assert all(getattr(packed, f).shape[1:] == getattr(arrays, f).shape
               for f in K.CampaignTables._fields)


def test_slot_passes_every_field_in_order():
    source = inspect.getsource(K.slot.py_func)
    assert _slot_fields(source) == list(K.CampaignTables._fields)


def test_a_slot_that_swaps_two_fields_is_seen():
    """Guard: a ``slot`` passing two fields the other way round fails the check above."""
    source = inspect.getsource(K.slot.py_func).replace("tables.em[s], tables.art_rec[s]",
                                                         "tables.art_rec[s], tables.em[s]")
    assert _slot_fields(source) != list(K.CampaignTables._fields)


def test_every_card_table_is_as_wide_as_its_declared_record():
    """The per-card tables have one column per slot of their record (``HEX`` ``H_*``,
    ``ITEM`` ``I_*``, ...), and ``cp`` one per campaign parameter (``PARAMETERS``)."""
    arrays = compile_campaign(load_scenario("base"))
    widths = {"hexes": K.HEX, "it": K.ITEM, "en": K.ENEMY, "ev": K.EVENT_CARD, "em": K.EMISSION,
              "art_cards": K.ARTIFACT_CARD, "lose_order": K.LOSS}
    for field, record in widths.items():
        assert getattr(arrays, field).shape[1] == record.size, (field, record.title)
    assert arrays.cp.shape == (K.PARAMETERS.size,)


def _seat_fields(source: str) -> list[str]:
    """The game's fields ``seat`` reads (``game.X`` or seat ``p``'s row ``game.X[p]``), in the
    order it passes them to ``GameState``."""
    [call] = [n for n in ast.walk(ast.parse(source)) if isinstance(n, ast.Call)
              and getattr(n.func, "id", "") == "GameState"]
    return [(arg.value if isinstance(arg, ast.Subscript) else arg).attr for arg in call.args]


def test_seat_passes_every_game_field_in_order():
    """A seat's view of the game (``seat``, written out positionally as numba needs) is a
    ``GameState`` whose every field is the game's field of the same name."""
    assert _seat_fields(inspect.getsource(K.seat.py_func)) == list(K.GameState._fields)


def test_a_seat_that_swaps_two_fields_is_seen():
    """Guard: a ``seat`` passing two fields the other way round fails the check above."""
    source = inspect.getsource(K.seat.py_func).replace("game.fres, game.ares",
                                                         "game.ares, game.fres")
    assert _seat_fields(source) != list(K.GameState._fields)
