"""Many games: the config, the schedule, the runner, where games execute, the store, export.

Calls down into ``referee`` to play each game and into ``ratings`` to fold live
ratings; nothing below imports it.
"""
