"""The arena: a season as a service, on top of tournaments/ as the CLI drives it."""
