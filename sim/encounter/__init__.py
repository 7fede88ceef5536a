"""Encounters: combat (P-14..P-29), anomalies (P-30..P-36) and events (Z-08..Z-10).

``spec`` holds the plain, immutable description of one encounter that the
kernels, the exact twins and the plain-Python reference all consume;
``compile`` builds it from ruleset cards and a policy; ``api`` runs it and
returns tidy tables.
"""
