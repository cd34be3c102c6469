"""Example bots and the Python SDK they are built on; they know only the protocol (``circus``)."""
