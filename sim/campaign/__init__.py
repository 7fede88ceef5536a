"""The campaign: whole games on the hex map.

Map and movement (Z-01 to Z-03, Z-18 to Z-26): ``hexmap`` compiles the
ruleset's map model (``rs.map``) to arrays; ``route`` plans exact routes on
them (fewest days, then most steps left) and fills the first-day tables a
campaign kernel reads::

    from sim.rules import load_ruleset
    from sim.campaign.hexmap import compile_map
    from sim.campaign.route import plan_route

    rs = load_ruleset()
    hm = compile_map(rs)
    route = plan_route(hm, hm.index_of("Cordon"), hm.index_of("Lab X-18"), 6, rs.rules.movement)
"""
