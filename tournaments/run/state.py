"""What a tournament's run knows: the state every part of the runner reads and changes.

:class:`RunState` holds it; each concern of the run is a class of its own module over it
(set-up, the bots' lifecycle, the rounds, the verdicts), and
:class:`tournaments.runner.TournamentRunner` combines them and plays the games.
"""

from __future__ import annotations

import secrets
import sys
import threading
from collections import Counter
from concurrent import futures
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from ratings.sprt import DealGame
from referee.participants import Participant
from tournaments.config import TournamentConfig, game_count
from tournaments.executor import KeptThreads
from tournaments.fingerprint import fingerprint
from tournaments.schedule import first_segment
from tournaments.store import Store, database_paths
from tournaments.worker import RunSpec

if TYPE_CHECKING:
    from distributed import Client   # the cluster extra's


class RunState:
    """A run's config, store and output, and what it learns as it goes."""

    def __init__(self, config: TournamentConfig, store: Store, log_dir: Path,
                 out: TextIO | None = None, quiet: bool = False,
                 skip_bad_bots: bool = False, fresh: bool = False,
                 private: tuple[Path, ...] = (), config_path: Path | None = None,
                 threads: KeptThreads | None = None) -> None:
        self.config = config
        # The games' and the renewal's threads, when the caller keeps them from run to
        # run; None: the run's own.
        self.threads = threads
        # The config's file, for the commands a message suggests.
        self.config_path = config_path
        self.store = store
        self.log_dir = log_dir
        self.out = out or sys.stderr
        self.quiet = quiet
        self.skip_bad_bots = skip_bad_bots
        self.fresh = fresh
        # The most games the schedule makes (fewer if a stop rule ends it).
        self.total = game_count(config)
        # Whether the stored tournament was finished (or stopped): nothing left to play.
        self.finished = False
        # Swiss byes per bot so far; an A/B test's games so far, by deal.
        self.byes: dict[str, int] = {}
        # How often each pair of bots sat at a Swiss table so far (a pair is not
        # seated together again while avoidable).
        self.met: Counter[frozenset[str]] = Counter()
        self.deal_games: list[DealGame] = []
        # The bots left out of the rounds being played: those that did not start in this
        # run, or in the run that paired the Swiss round.
        self.absent: list[str] = []
        self.stop = threading.Event()
        self.participants: dict[str, Participant] = {}
        # Fresh bots being started for the next rotation (stopped with the rest).
        self.renewal: futures.Future | None = None
        # Whether this run started bots afresh yet (said once a run, not every rotation).
        self.renewed = False
        self.retiring: list[threading.Thread] = []
        # Paths no sandboxed bot may see: those given (the config, the logs folder), the
        # database with its folders and companions, and every bot's dir: (each bot sees
        # its own).
        self.private = (*private, *database_paths(store.path),
                        *(Path(spec.dir) for spec in config.bots if spec.dir))
        # Each bot's run of consecutive faulted games, and the bots suspended for it.
        self.streaks: dict[str, int] = {}
        self.suspended: set[str] = set()
        self.streaks_lock = threading.Lock()
        # The deal secret of this run (secret_deals), stored with the tournament's record.
        self.secret = ""
        # The schedule's segments (more than one once the field changed in a season), and
        # the one whose rounds are being played.
        self.segments = [first_segment(config)]
        self.segment = self.segments[0]
        # Each bot's name, version and protocol from its Hello, for the store.
        self.identities: dict[str, tuple[str, str, str]] = {}
        # Each bot's code fingerprint, stored with every game it plays.
        self.fingerprints = {spec.name: fingerprint(spec) for spec in config.bots}
        # On a cluster: the Dask client, and what every game of this run shares.
        self.client: Client | None = None
        self.remote = RunSpec(f"{config.name}-{secrets.token_hex(6)}", config,
                              tuple(str(path) for path in self.private))
