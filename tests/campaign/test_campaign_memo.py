"""The compile step remembers the per-scenario tables whose inputs are unchanged (issue 25,
section 5, 'Speed'): candidates of ``zonesim optimize`` that differ only in a key the day
loop reads share one read-only enemy table; a fight key, another ruleset object or another
loadout compiles afresh; and a remembered table equals the one compiled without the memo."""

from __future__ import annotations

import dataclasses
import weakref

import numpy as np
import pytest

from sim.campaign import compile as C
from sim.campaign.memo import per_ruleset
from sim.encounter.combat import CombatPolicy, compile_combat
from sim.rules.scenario import load_scenario


def _with(scenario, **policy):
    return dataclasses.replace(scenario, policy=dataclasses.replace(scenario.policy, **policy))


@pytest.fixture(scope="module")
def base():
    return load_scenario("base")


def test_a_non_fight_key_shares_the_fight_tables(base):
    a = C.compile_campaign(_with(base, medkit_at=1, retreat_at=0, pay_heal=False))
    b = C.compile_campaign(_with(base, medkit_at=3, retreat_at=2, pay_heal=True,
                                 shopping=("Stimulant",), route=()))
    for name in ("e_params", "e_bonus", "e_spend", "e_uses0", "en", "a_params", "ev"):
        assert getattr(a, name) is getattr(b, name), name
    assert a.cp is not b.cp and not np.array_equal(a.cp, b.cp)


@pytest.mark.parametrize("key", ["flee_at", "heal_at", "sneak"])
def test_a_fight_key_compiles_its_own_fight_tables(base, key):
    value = {"flee_at": base.policy.flee_at + 1, "heal_at": base.policy.heal_at + 1,
             "sneak": "never" if base.policy.sneak == "always" else "always"}[key]
    a = C.compile_campaign(base)
    b = C.compile_campaign(_with(base, **{key: value}))
    assert a.e_params is not b.e_params
    assert a.a_params is b.a_params  # anomalies ignore the fight policy


def test_enter_anomalies_compiles_its_own_anomaly_tables_only(base):
    a = C.compile_campaign(_with(base, enter_anomalies=False))
    b = C.compile_campaign(_with(base, enter_anomalies=True))
    assert a.a_params is not b.a_params and not np.array_equal(a.a_params, b.a_params)
    assert a.e_params is b.e_params


def test_another_ruleset_object_compiles_afresh(base):
    other = dataclasses.replace(base, ruleset=dataclasses.replace(base.ruleset))
    a, b = C.compile_campaign(base), C.compile_campaign(other)
    assert a.e_params is not b.e_params and np.array_equal(a.e_params, b.e_params)


def test_a_remembered_table_cannot_be_written(base):
    """Guard: no caller can change a table that another candidate reads."""
    arrays = C.compile_campaign(base)
    for name in ("e_params", "e_bonus", "e_spend", "e_uses0", "a_params", "ev", "en"):
        table = getattr(arrays, name)
        assert not table.flags.writeable, name
        with pytest.raises(ValueError, match="read-only"):
            table[(0,) * table.ndim] = 1
    tables = C._enemies(base, ())
    tables["e_params"] = None  # the handed-out dict is the caller's own
    assert C._enemies(base, ())["e_params"] is not None
    assert arrays.cp.flags.writeable  # the per-candidate scalars stay the caller's


def test_remembered_tables_equal_those_compiled_without_the_memo(base):
    for scenario in (base, _with(base, flee_at=2, heal_at=3, sneak="never",
                                 enter_anomalies=not base.policy.enter_anomalies)):
        cached = C.compile_campaign(scenario)
        for memo in (C.policy_fights, C.fight_tables, C.packed_fight, C.hazard_tables):
            memo.cache_clear()
        fresh = C.compile_campaign(scenario)
        for f in dataclasses.fields(C.CampaignArrays):
            x, y = getattr(cached, f.name), getattr(fresh, f.name)
            assert x.dtype == y.dtype and np.array_equal(x, y), f.name


@pytest.mark.parametrize("policy", [{}, {"flee_at": 2, "heal_at": 3}, {"sneak": "never"},
                                    {"flee_at": 1, "heal_at": 0, "sneak": "never"}])
def test_the_policy_written_into_shared_fights_is_the_policy_compiled(base, policy):
    """Each fight of the table equals compile_combat's own pack under that fight policy
    (P-16, P-21, Z-12): the loadout's fights are compiled once and the policy's slots
    written, so a policy value packed anywhere but policy_slots would differ here."""
    scenario = _with(base, **policy)
    p = scenario.policy
    arrays = C.compile_campaign(scenario)
    fightable = [n for n, c in base.ruleset.enemies.items() if C.fightable(c.wound_type)]
    rule = CombatPolicy(sneak=p.sneak, flee_at=p.flee_at, heal_at=p.heal_at)
    for mask, weapons in enumerate(C.weapon_subsets(tuple(scenario.weapons))):
        for e, name in enumerate(fightable):
            packed = compile_combat(base.ruleset, scenario.stalker, name, scenario.armor,
                                    weapons, (), rule, intellect=C.intellect(scenario)).pack()
            row = arrays.e_params[mask, e]
            assert np.array_equal(row[:len(packed.params)], packed.params), (mask, name)
            assert not row[len(packed.params):].any()
            assert np.array_equal(arrays.e_uses0[mask, e, :len(packed.uses)], packed.uses)


def test_a_fight_key_reuses_the_loadout_s_fights(base):
    C.compile_campaign(base)
    built = C.packed_fight.cache_len(), C.fight_tables.cache_len()
    for flee_at in range(4):
        C.compile_campaign(_with(base, flee_at=flee_at, heal_at=3 - flee_at))
    assert (C.packed_fight.cache_len(), C.fight_tables.cache_len()) == built


def test_the_memo_is_bounded_and_keyed_by_identity():
    built = []

    @per_ruleset(3)
    def table(rs, n):
        built.append((rs, n))
        return {"x": np.arange(n)}

    class Rules:
        pass

    rs = Rules()
    for n in range(5):
        table(rs, n)
    assert table.cache_len() == 3
    table(rs, 4)
    assert len(built) == 5  # remembered
    table(rs, 0)
    assert len(built) == 6  # dropped, least recently used
    other = Rules()
    table(other, 4)
    assert len(built) == 7  # another object
    assert not table(rs, 4)["x"].flags.writeable
    del built[:]
    held = weakref.ref(other)
    del other
    assert held() is None  # the memo keeps no ruleset alive


def test_every_visiting_order_reads_one_route_search(base):
    """The route tables of two visiting orders are the same columns, reordered."""
    from sim.campaign import route

    names = [h.name for h in base.ruleset.map.hexes if h.location == "complex"]
    a = C.compile_campaign(_with(base, route=tuple(names)))
    b = C.compile_campaign(_with(base, route=tuple(reversed(names))))
    n = len(names)
    assert np.array_equal(a.day_table[:, :n], b.day_table[:, n - 1::-1])
    assert np.array_equal(a.day_len[:, n:], b.day_len[:, n:])
    hexmap = C._map(base.ruleset)
    direct, lengths = route.day_paths(hexmap, np.arange(hexmap.n), a.target_hex,
                                      [int(base.ruleset.rules.movement.base_steps)],
                                      base.ruleset.rules.movement)
    assert np.array_equal(direct[..., 0, :], a.day_table[..., 0, :direct.shape[-1]])
    assert np.array_equal(lengths[..., 0], a.day_len[..., 0])
