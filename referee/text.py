"""Showing a bot's words safely: every string a bot chose, made inert for a terminal or file.

A bot chooses its Hello name, version and claimed games, its gRPC error details and
whatever it prints to its log, and an author who wants to win may put terminal
control in them: ``\\x1b]0;…\\x07`` sets the window title, ``\\x1b[2J`` clears the
screen, ``\\r`` and ``\\n`` overwrite or fake lines of the referee's own output, and
Unicode bidi overrides reorder what is read. :func:`printable` is the one place
such strings are made inert before a terminal, a log line or an organiser's file
shows them; HTML pages escape on their own (Jinja's autoescape).
"""

from __future__ import annotations

import re

#: Characters shown escaped: C0 controls (newlines included: a bot's string is one line),
#: DEL and C1 controls (0x9b is a one-byte CSI), the Unicode line and paragraph separators,
#: the bidi marks and overrides, and lone surrogates (undecodable bytes).
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069"
                      "\ud800-\udfff]")


def _escaped(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: object) -> str:
    """``text`` as one inert line: each control character shown as ``\\x1b``, ``\\r``
    as ``\\x0d``, a bidi override as ``\\u202e``; everything else as it is."""
    return _CONTROL.sub(_escaped, str(text))
