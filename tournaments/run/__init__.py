"""The parts of a tournament's run, one concern a module, over the state of
:mod:`tournaments.run.state`; :mod:`tournaments.runner` combines them."""
