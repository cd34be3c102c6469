"""The JSON wire's reference in docs/protocol.md, written from the ``.proto`` files and real
games, so that it cannot drift from what the referee sends.

``python -m referee.wiredoc`` rewrites the section of docs/protocol.md between its two
markers: every message a stdio bot reads or writes (each field's JSON key, the JSON value
it holds and the ``.proto``'s comment on it), each game's event kinds with their data keys
(from seeded random games), and one complete ``decide`` line per game, request and reply,
as the referee writes and reads them. ``--check`` only compares, and fails when the section
is out of date (``tests/test_wiredoc.py`` does the same).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from circus.v1 import bot_pb2
from referee.games import GAMES
from referee.games.base import State
from referee.jsonwire import decision_text, descriptor_of
from referee.stdio import request_line

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "protocol.md"
PROTO = ROOT / "proto" / "circus" / "v1"
BEGIN = "<!-- wiredoc:begin (python -m referee.wiredoc writes this section) -->"
END = "<!-- wiredoc:end -->"
#: The game every example decision is a seat of, its size and its clock.
PLAYERS = 3
MOVE_MS, BANK_MS = 1000, 10000
#: Per player count, the random games whose events are listed.
GAMES_EACH = 2

_STRUCT = "google.protobuf.Struct"
_DIGITS = (FieldDescriptor.TYPE_INT64, FieldDescriptor.TYPE_UINT64, FieldDescriptor.TYPE_SINT64,
           FieldDescriptor.TYPE_FIXED64, FieldDescriptor.TYPE_SFIXED64)
_SIGNED = (FieldDescriptor.TYPE_INT32, FieldDescriptor.TYPE_SINT32, FieldDescriptor.TYPE_SFIXED32)
_MESSAGE_LINE = re.compile(r"^message\s+(\w+)\s*\{")
_FIELD_LINE = re.compile(r"^\s*(?:repeated\s+)?[\w.]+\s+(\w+)\s*=\s*\d+;\s*(?://\s*(.*))?$")


@dataclass(frozen=True)
class Comments:
    """The ``.proto`` files' comments: on each message, and on each field by message."""

    messages: dict[str, str]
    fields: dict[tuple[str, str], str]


def proto_comments(folder: Path = PROTO) -> Comments:
    """The comment lines right above each ``message`` and each field (a field's trailing
    comment too), joined into one line each; a field with none right after one with a
    comment shares it (``int32 giver = 7; int32 receiver = 8;`` under one comment)."""
    messages: dict[str, str] = {}
    fields: dict[tuple[str, str], str] = {}
    for path in sorted(folder.glob("*.proto")):
        message, above, previous = "", [], ""
        for line in path.read_text().splitlines():
            stripped = line.strip()
            if stripped.startswith("//"):
                above.append(stripped[2:].strip())
                continue
            opened = _MESSAGE_LINE.match(stripped)
            field = _FIELD_LINE.match(line)
            if opened:
                message = opened.group(1)
                messages[message] = " ".join(above)
            if field and message:
                said = " ".join([*above, field.group(2) or ""]).strip()
                if not said and previous and fields[message, previous]:
                    said = f"See `{previous}`."
                fields[message, field.group(1)] = said
            previous = field.group(1) if field and message else ""
            above = []
    return Comments(messages, fields)


def json_value(field: FieldDescriptor) -> str:
    """What a field's JSON value is, in words: a number, a string of digits, a message."""
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        assert field.message_type is not None, "a message field has its type"
        name = field.message_type.name
        one = ("object: any JSON (a `Struct`: numbers are doubles)"
               if field.message_type.full_name == _STRUCT else f"object: [{name}](#{name.lower()})")
    elif field.type == FieldDescriptor.TYPE_STRING:
        one = "string"
    elif field.type == FieldDescriptor.TYPE_BOOL:
        one = "`true` (absent: false)"
    elif field.type in _DIGITS:
        one = 'string of digits (`"7"`)'
    elif field.type in _SIGNED:
        one = "integer"
    else:
        one = "integer ≥ 0"
    return f"list of {one}" if field.is_repeated else one


def reachable(roots: list[Descriptor]) -> list[Descriptor]:
    """``roots``, then the messages they hold in the order of their files and of the
    messages in each file (``Struct`` aside: it is any JSON object)."""
    seen: dict[str, Descriptor] = {}
    waiting = list(roots)
    while waiting:
        message = waiting.pop()
        if message.full_name in seen or message.full_name == _STRUCT:
            continue
        seen[message.full_name] = message
        waiting += [field.message_type for field in message.fields
                    if field.message_type is not None]
    held = [message for message in seen.values() if message not in roots]
    files = sorted({message.file.name for message in held},
                   key=lambda name: (name != "circus/v1/bot.proto", name))
    ordered = list(roots)
    for name in files:
        in_file = [message for message in held if message.file.name == name]
        order = list(in_file[0].file.message_types_by_name)
        ordered += sorted(in_file, key=lambda message: order.index(message.name))
    return ordered


def message_table(message: Descriptor, comments: Comments) -> list[str]:
    """One message: its heading, its comment, a row per field (a oneof's fields say so)."""
    lines = [f"#### {message.name}", ""]
    said = comments.messages.get(message.name, "")
    if said:
        lines += [said, ""]
    if not message.fields:
        return [*lines, "No field: `{}`.", ""]
    lines += ["| JSON key | value | meaning |", "|---|---|---|"]
    for field in message.fields:
        meaning = comments.fields.get((message.name, field.name), "")
        oneof = field.containing_oneof
        if oneof is not None:
            keys = ", ".join(f"`{other.name}`" for other in oneof.fields)
            meaning = f"one of {keys}: exactly one is present. {meaning}".strip()
        lines.append(f"| `{field.name}` | {json_value(field)} | {meaning.replace('|', '/')} |")
    return [*lines, ""]


# -- real games -----------------------------------------------------------------------------

def random_game(game: str, variant: str, players: int, seed: int) -> State:
    """A game of ``game`` played to its end at random, seeded."""
    state = GAMES[game].new_state(players, variant, seed)
    choices = random.Random(seed)
    while not state.is_terminal():
        state.apply(choices.randrange(len(state.legal_actions())))
    return state


def event_rows(game: str) -> list[str]:
    """Each event kind of ``game`` seen in seeded random games, with its data keys (a key
    not in every such event marked ``?``) and who sees it."""
    keys: dict[str, list[set[str]]] = {}
    private: dict[str, bool] = {}
    rules = GAMES[game]
    for variant in rules.variants:
        for players in range(rules.min_players, rules.max_players + 1):
            for number in range(GAMES_EACH):
                for event in random_game(game, variant, players, 100 * players + number).events:
                    keys.setdefault(event.kind, []).append(set(event.data))
                    private[event.kind] = private.get(event.kind, False) or (
                        event.visible_to is not None)
    rows = ["| `kind` | `data` keys (`?`: not always there) | seen by |", "|---|---|---|"]
    for kind in sorted(keys):
        every = set.intersection(*keys[kind])
        listed = ", ".join(f"`{key}`" if key in every else f"`{key}`?"
                           for key in sorted(set.union(*keys[kind])))
        seen = "the seats involved only" if private[kind] else "every seat"
        rows.append(f"| `{kind}` | {listed or '(none)'} | {seen} |")
    return rows


def worth_showing(game: str, state: State, seat: int) -> bool:
    """Whether a decision shows the shapes a bot author asks about: piles on the table, a
    Flohcati trio and known cards, an Animal Circus score pile; and a choice to make."""
    observation = state.observation(seat)
    if len(state.legal_actions()) < 2:
        return False
    if game == "flea-circus":
        return sum(bool(pile.get("cards")) for pile in observation["piles"]) >= 2
    if game == "flohcati":
        return (any(seat_trios.get("trios") for seat_trios in observation["trios"])
                and sum(bool(known.get("cards")) for known in observation["known_cards"]) >= 2)
    return sum(bool(pile.get("cards")) for pile in observation["score_piles"]) >= 2


def example_decision(game: str, variant: str, seed: int = 1) -> tuple[str, str]:
    """One decide line as a stdio bot reads it and a reply it may write: the first decision
    worth showing of a seeded random game, at that seat's place in its own process (its
    Hello, its StartGame, each of its decisions before)."""
    for attempt in range(seed, seed + 50):
        state = GAMES[game].new_state(PLAYERS, variant, attempt)
        choices = random.Random(attempt)
        next_event = [0] * PLAYERS
        asked = [0] * PLAYERS
        event_texts: list[bytes] = []
        decision = 0
        while not state.is_terminal():
            decision += 1
            seat = state.current_seat()
            actions = state.legal_actions()
            text = decision_text(state, f"example/{game}", decision, next_event[seat], MOVE_MS,
                                 BANK_MS, actions, event_texts)
            next_event[seat] = len(state.events)
            asked[seat] += 1
            chosen = choices.randrange(len(actions))
            if worth_showing(game, state, seat):
                request_id = 2 + asked[seat]   # after its Hello and its StartGame
                reply = {"request_id": str(request_id),
                         "decide": {"decision_id": str(decision), "action_index": chosen}}
                return (request_line(request_id, "decide", text).decode().rstrip("\n"),
                        json.dumps(reply, separators=(",", ":")))
            state.apply(chosen, actions)
    raise ValueError(f"no decision of {game} worth showing in 50 seeded games")


# -- the section ----------------------------------------------------------------------------

def section() -> str:
    """The generated section, markers included."""
    comments = proto_comments()
    lines = [BEGIN, "",
             "This section is written by `python -m referee.wiredoc` from `proto/` and real games "
             "(`tests/test_wiredoc.py` fails when it is out of date): do not edit it by hand.",
             "Every key is the `.proto` field name; a field at its default (0, `\"\"`, false, "
             "an empty list, an unset message) is absent, so read every key with a default. "
             "`BotMessage.error` is the Play stream's: a stdio bot has no error reply.", "",
             "### Every message, as JSON", ""]
    for message in reachable([descriptor_of(bot_pb2.RefereeMessage),
                              descriptor_of(bot_pb2.BotMessage)]):
        lines += message_table(message, comments)
    lines += ["### Each game on the wire", ""]
    for name, rules in GAMES.items():
        variant = rules.variants[0]
        request, reply = example_decision(name, variant)
        field = name.replace("-", "_")
        lines += [f"#### `{name}`", "",
                  f"Its observation is `observation.{field}`, its actions' typed form "
                  f"`legal_actions[i].payload.{field}`, its events' typed details "
                  f"`events[i].payload.{field}` (the messages above). One decision of a "
                  "seeded random game of "
                  f"{PLAYERS} players (variant `{variant}`), whole: the line the referee writes "
                  "(`>`) and a reply (`<`):", "",
                  "```text", f"> {request}", f"< {reply}", "```", "",
                  "Its events, seen in seeded random games of every variant and player count:",
                  "", *event_rows(name), ""]
    return "\n".join([*lines, END])


def rewritten(text: str) -> str:
    """``text`` (docs/protocol.md) with its section replaced by :func:`section`."""
    start, end = text.index(BEGIN), text.index(END) + len(END)
    return text[:start] + section() + text[end:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m referee.wiredoc", description=__doc__)
    parser.add_argument("--check", action="store_true",
                        help="only compare: exit 1 when the section is out of date")
    options = parser.parse_args(argv)
    text = DOC.read_text()
    new = rewritten(text)
    if options.check:
        if new != text:
            print(f"{DOC}: the JSON wire's section is out of date: run python -m "
                  "referee.wiredoc", file=sys.stderr)
            return 1
        return 0
    DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
