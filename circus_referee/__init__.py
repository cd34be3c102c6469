"""The ``circus-referee`` command line, on top of everything and imported by nothing."""
