"""The ``circus-referee`` commands, one module per area; :mod:`circus_referee.main` assembles
them into the command group."""
