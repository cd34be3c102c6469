"""Benchmarks of the referee: ``python -m bench`` runs them and prints the table.

Four benchmarks (see docs/performance.md for the latest figures):

1. ``engines``    — the rules engines in process: random self-play decisions/s and games/s
   for every game and variant, next to RLCard's UNO with random agents, in the same run.
2. ``wire``       — decisions/s through the referee (Match + GrpcClient) against a Python
   random bot process, next to a bare gRPC unary echo with the same message sizes.
3. ``scaling``    — tournament games/s with gRPC bots at concurrency 1, 2, 4, 8, the
   referee's CPU time per decision, and its peak RSS at concurrency 1 and 16.
4. ``tournament`` — a big in-process tournament (8 bots, 4 seats, ~10,000 games) with SQLite
   and TrueSkill, and where its time goes, from a cProfile profile.

Benchmarks are not tests: nothing here asserts a time. Ratios are measured side by side in
one run, in interleaved rounds, and the median round is reported.
"""
