"""Bots on the stdio transport: standard-library examples, and any SDK bot on stdio."""
