"""One game: the rules engines, the match runner and its clock, bot clients and processes.

Knows nothing of tournaments, stores or ratings. ``referee.games`` holds the pure
rules engines (no I/O, seeded chance, replayable); ``match`` plays one game between
seated bots; ``clients``, ``participants`` and ``process`` reach and run the bots;
``wire`` converts engine data to the protocol; ``checkbot`` checks one bot.
"""
