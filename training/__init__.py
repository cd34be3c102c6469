"""Training environments of the games (docs/training.md)."""
