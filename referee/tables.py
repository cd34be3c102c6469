"""Drawing a game's table as plain data: zones of cards, per seat and in the middle.

The replay viewer draws every game with one script; what differs between
games is only which zones a table has and how a card looks, and that is
decided here, where the engines' dicts are known. A seat's table is built
from its observation alone (the dict ``wire`` sends that seat), so the viewer
cannot show a seat anything it was not sent; the omniscient table is built
from the engine's ``final_state()``, which holds every card. The browser
draws them itself, from the states and observations a replay page holds,
with ``pages/static/steps.js``: a port of this module, which stays its
reference (tests/test_replay_viewer.py runs the port under node over games of
every kind and table size and compares every step's tables with these); a
change here is a change there.

A table is ``{"center": [zone], "seats": [seat]}``; a zone is ``{"title",
"cards", "note", "style"}``; a card is its id (``"red-5"``, the same in every view and
every game of one kind), ``""`` for a card face down, and ``"*red-5"`` for a card the
other seats know of. How a card looks (``{"big", "small", "tone"}``, with ``"short"``
and ``"word"`` for a card named by words) depends on its id alone: :func:`card_looks`
gives it once per game, not once per card drawn.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Sequence

from referee.games.animal_circus import NAMES as ANIMAL_NAMES

Card = str
Look = dict[str, Any]
Zone = dict[str, Any]
Table = dict[str, Any]

BACK: Card = ""
SEEN = "*"
UPCOMING = 6  # the omniscient view shows this many of a hidden pile's next cards


def zone(title: str, cards: Sequence[Card] = (), note: str = "", style: str = "row") -> Zone:
    """A labelled group of cards; ``style`` is ``row``, ``mini`` (small cards) or ``stack``."""
    return {"title": title, "cards": list(cards), "note": note, "style": style}


def backs(count: int) -> list[Card]:
    return [BACK] * max(0, count)


def pile_zone(title: str, count: int, upcoming: Sequence[Card] | None = None) -> Zone:
    """A face-down pile: its count, and in the omniscient view its next cards."""
    note = f"{count} card{'s' if count != 1 else ''}"
    if upcoming:
        return zone(title, upcoming[:UPCOMING], note + (", next first" if count > 1 else ""),
                    "mini")
    return zone(title, backs(min(count, 1)), note, "stack")


def seat_entry(seat: int, zones: list[Zone], stats: list[tuple[str, Any]],
               flags: Sequence[str] = ()) -> dict[str, Any]:
    return {"seat": seat, "zones": zones, "stats": [[k, v] for k, v in stats],
            "flags": list(flags)}


# -- Amazing Flea Circus -----------------------------------------------------------------
FLEA_TONES = {"A": "#c0392b", "B": "#d35400", "C": "#b7950b", "D": "#27ae60", "E": "#16a085",
              "F": "#2e86c1", "G": "#7d3c98"}
FLEA_ACTIONS = {"numbers": ("In Numbers", "N", "In Numbers There Is Strength"),
                "counterattack": ("Counter-attack", "CA", "Animal Counterattack"),
                "recruitment": ("Recruit-ment", "R", "Recruitment"),
                "general": ("General", "Gen", "General Saving the Earth")}
FLEA_VALUES = {"A": 2, "B": 2, "C": 3, "D": 3, "E": 3, "F": 4, "G": 4}


def flea_card(card: str | dict[str, Any]) -> Card:
    """A card from the engine (``"A"``) or from an observation (a FleaCard dict)."""
    return card if isinstance(card, str) else card.get("saucer") or card["kind"]


def flea_look(code: str) -> Look:
    if code in FLEA_ACTIONS:
        word, short, name = FLEA_ACTIONS[code]
        return {"big": word, "short": short, "small": name, "tone": "#4a235a", "word": 1}
    return {"big": code, "small": f"saucer · {FLEA_VALUES.get(code, '?')} loot",
            "tone": FLEA_TONES.get(code, "#555")}


def flea_table(public: dict[str, Any], hands: list[list[Any] | int],
               deck: list[str] | None) -> Table:
    players = len(public["loot"])
    seats = []
    for seat in range(players):
        hand = hands[seat]
        cards = backs(hand) if isinstance(hand, int) else [flea_card(c) for c in hand]
        pile = [flea_card(c) for c in public["piles"][seat]["cards"]]
        seats.append(seat_entry(seat, [
            zone("Hand", cards), zone("Pile", pile, "top last" if len(pile) > 1 else "", "mini")],
            [("loot", public["loot"][seat])],
            ["skipping"] if public["skipping"][seat] else []))
    center = [zone("Earth", note=f"{public['earth']} loot left", style="earth"),
              pile_zone("Deck", public["deck_size"],
                        [flea_card(c) for c in deck[:UPCOMING]] if deck is not None else None)]
    return {"center": center, "seats": seats, "turn": public["turn"]}


def flea_views(state: dict[str, Any], observations: list[dict[str, Any]]) -> list[Table]:
    public = observations[0]
    tables = [flea_table(public, state["hands"], state["deck"])]
    for seat, obs in enumerate(observations):
        hands: list[list[Any] | int] = [obs["hand"] if other == seat else size
                                        for other, size in enumerate(obs["hand_sizes"])]
        tables.append(flea_table(obs, hands, None))
    return tables


# -- Circus Flohcati ------------------------------------------------------------------------
FLOH_TONES = {"red": "#c0392b", "orange": "#e67e22", "yellow": "#d4ac0d", "green": "#27ae60",
              "teal": "#138d90", "blue": "#2e86c1", "purple": "#7d3c98", "pink": "#d63384",
              "brown": "#8d5524", "grey": "#707b7c"}
FLOH_ACTIONS = {"take-a-card": ("Take a Card", "Take"), "open-the-deck": ("Open the Deck", "Open"),
                "pick-a-card": ("Pick a Card", "Pick"),
                "nueva-atraccion": ("Nueva atracción", "Nueva"),
                "atraerse": ("Atraerse", "Atr."), "solicitar": ("Solicitar Atracción", "Sol.")}


def floh_card(card: str | dict[str, Any], seen: bool = False) -> Card:
    """A card from the engine (``"red-5"``) or an observation; ``seen``: others know it."""
    code = card if isinstance(card, str) else card["code"]
    return SEEN + code if seen else code


def floh_look(code: str) -> Look:
    colour, _, value = code.rpartition("-")
    if colour in FLOH_TONES and value.isdigit():
        return {"big": value, "small": colour, "tone": FLOH_TONES[colour]}
    title, short = FLOH_ACTIONS.get(code, (code, code[:4]))
    return {"big": title, "short": short, "small": "action card", "tone": "#1c2833", "word": 1}


def floh_center(public: dict[str, Any], deck: list[str] | None,
                display: list[Any], discard: list[Any], match: Any) -> list[Zone]:
    center = [pile_zone("Deck", public["deck_size"],
                        [floh_card(c) for c in deck[:UPCOMING]] if deck is not None else None),
              zone("Display", [floh_card(c) for c in display],
                   f"{public['flips_this_turn']} flipped this turn")]
    if match:
        center.append(zone("Matching card", [floh_card(match)]))
    center.append(zone("Discard", [floh_card(c) for c in discard[-8:]],
                       f"{len(discard)} cards" + (", last 8" if len(discard) > 8 else ""),
                       "mini"))
    if public.get("action_card"):
        center.append(zone("Action card", [floh_card(public["action_card"])],
                           public.get("requested_colour", "")))
    return center


def floh_trios(public: dict[str, Any], seat: int) -> Zone:
    trios = public["trios"][seat]["trios"]
    cards = [floh_card(card) for trio in trios for card in trio["cards"]]
    return zone("Trios", cards, f"{len(trios)} × 10 points" if trios else "none yet", "mini")


def flohcati_views(state: dict[str, Any], observations: list[dict[str, Any]],
                   scores: list[int]) -> list[Table]:
    public = observations[0]
    seats = [seat_entry(seat, [zone("Hand", [floh_card(c) for c in hand]),
                               floh_trios(public, seat)],
                        [("points", scores[seat]), ("cards", len(hand))],
                        ["gala"] if state.get("gala_caller") == seat else [])
             for seat, hand in enumerate(state["hands"])]
    tables = [{"center": floh_center(public, state["deck"], state["display"],
                                     state["discard"], state.get("matching_card")),
               "seats": seats, "turn": public["turn"], "note": public["reason"]}]
    for seat, obs in enumerate(observations):
        tables.append(flohcati_seat_view(seat, obs))
    return tables


def flohcati_seat_view(seat: int, obs: dict[str, Any]) -> Table:
    """Seat ``seat``'s table: its hand, the cards it knows of others' hands, the rest face down."""
    known_of = [[c["code"] for c in held["cards"]] for held in obs["known_cards"]]
    entries = []
    for holder, size in enumerate(obs["hand_sizes"]):
        if holder == seat:
            seen = set(known_of[seat])
            cards = [floh_card(c, c["code"] in seen) for c in obs["hand"]]
            note = "• known to the others" if seen else ""
        else:
            cards = [floh_card(c) for c in known_of[holder]] + backs(size - len(known_of[holder]))
            note = f"{len(known_of[holder])} of {size} known" if known_of[holder] else ""
        entries.append(seat_entry(holder, [zone("Hand", cards, note), floh_trios(obs, holder)],
                                  [("cards", size)]))
    return {"center": floh_center(obs, None, obs["display"], obs["discard"],
                                  obs.get("matching_card")),
            "seats": entries, "turn": obs["turn"], "note": obs["reason"]}


# -- Animal Circus ----------------------------------------------------------------------------
ANIMAL_TONES = ["#b03a2e", "#1f618d", "#1e8449", "#b9770e", "#6c3483"]


def animal_card(card: dict[str, Any]) -> Card:
    """An AnimalCard dict, as value-colour; its colour is the seat whose deck it came from."""
    return f"{card['value']}-{card['color']}"


def animal_look(code: str) -> Look:
    value, _, colour = code.partition("-")
    return {"big": value, "small": ANIMAL_NAMES.get(int(value), ""),
            "tone": ANIMAL_TONES[int(colour) % 5]}


def animal_cards(cards: list[dict[str, Any]]) -> list[Card]:
    return [animal_card(card) for card in cards]


def animal_center(public: dict[str, Any], out_of_game: list[dict[str, Any]]) -> list[Zone]:
    rules = public.get("constraints", {})
    binding = [text for text, on in (
        (f"Bat: play lower than {rules.get('lower_than')}", rules.get("bat")),
        ("Parrot: play a card just drawn", rules.get("parrot")),
        ("Bear: no draw this turn", rules.get("bear"))) if on]
    return [zone("Ring", animal_cards(public["ring"]), "; ".join(binding) or "bottom first"),
            zone("Out of the game", animal_cards(out_of_game), "", "mini")]


def animal_views(state: dict[str, Any], observations: list[dict[str, Any]]) -> list[Table]:
    public = observations[0]
    seats = []
    for seat, hand in enumerate(state["hands"]):
        draw = state["draw_piles"][seat]
        seats.append(seat_entry(seat, [
            zone("Hand", animal_cards(hand)),
            pile_zone("Draw pile", len(draw), animal_cards(draw[:UPCOMING])),
            zone("Score pile", animal_cards(state["score_piles"][seat]), "", "mini"),
            zone("Put away", animal_cards(state["put_away"][seat]), "unseen by all", "mini")],
            [("points", public["scores"][seat]), ("cards", len(hand))]))
    tables = [{"center": animal_center({**public, "ring": state["ring"]},
                                       state["out_of_game"]),
               "seats": seats, "turn": public["turn"]}]
    for seat, obs in enumerate(observations):
        tables.append(animal_seat_view(seat, obs))
    return tables


def animal_seat_view(seat: int, obs: dict[str, Any]) -> Table:
    entries = []
    for holder, size in enumerate(obs["hand_sizes"]):
        mine = holder == seat
        hand = animal_cards(obs["hand"]) if mine else backs(size)
        draw_size = obs["draw_sizes"][holder]
        known = animal_cards(obs["known_draw_top"]) if mine else []
        draw = zone("Draw pile", known + backs(min(1, draw_size - len(known))),
                    f"{draw_size} cards" + (f", top {len(known)} known" if known else ""),
                    "mini" if known else "stack")
        entries.append(seat_entry(holder, [
            zone("Hand", hand), draw,
            zone("Score pile", animal_cards(obs["score_piles"][holder]["cards"]), "", "mini"),
            zone("Put away", backs(obs["put_away_per_player"]), "unseen by all", "stack")],
            [("points", obs["scores"][holder]), ("cards", size)]))
    return {"center": animal_center(obs, obs["out_of_game"]), "seats": entries,
            "turn": obs["turn"]}


ViewBuilder = Callable[[dict[str, Any], list[dict[str, Any]], list[int]], list[Table]]
VIEWS: dict[str, ViewBuilder] = {
    "flea-circus": lambda state, observations, _scores: flea_views(state, observations),
    "flohcati": flohcati_views,
    "animal-circus": lambda state, observations, _scores: animal_views(state, observations),
}


LOOKS: dict[str, Callable[[str], Look]] = {
    "flea-circus": flea_look, "flohcati": floh_look, "animal-circus": animal_look}


def card_looks(game: str, cards: Iterable[Card]) -> dict[str, Look]:
    """How each of ``cards`` looks, by id (face-down cards and the seen mark left out)."""
    look = LOOKS[game]
    return {code: look(code) for code in {card.removeprefix(SEEN) for card in cards} if code}


def tables(game: str, state: dict[str, Any], observations: list[dict[str, Any]],
           scores: list[int]) -> list[Table]:
    """The omniscient table, then each seat's, of one position."""
    return VIEWS[game](state, observations, scores)


def hand_text(game: str, observation: dict[str, Any]) -> str:
    """A seat's hand in a few characters, for the text replay.

    Flea Circus and Flohcati cards by their id (``A``, ``numbers``, ``red-5``);
    Animal Circus cards by value, which fixes the animal.
    """
    if game == "flea-circus":
        return " ".join(flea_card(card) for card in observation["hand"])
    if game == "flohcati":
        return " ".join(floh_card(card) for card in observation["hand"])
    return " ".join(str(card["value"]) for card in observation["hand"])


def public_table(seat_tables: Sequence[Table]) -> Table:
    """What every seat saw, from the seats' own tables (each built from its observation
    alone): a seat's cards as every other seat drew them, the middle as all of them drew
    it; a card not drawn alike by all of them is face down, a note or a stat not alike
    is left out."""
    first = seat_tables[0]
    seats = []
    for holder, entry in enumerate(first["seats"]):
        seen_by = [table["seats"][holder] for seat, table in enumerate(seat_tables)
                   if seat != holder]
        seats.append(seat_entry(
            entry["seat"], _common_zones([seen["zones"] for seen in seen_by]),
            [(key, value) for key, value in seen_by[0]["stats"]
             if all([key, value] in seen["stats"] for seen in seen_by)],
            [flag for flag in seen_by[0]["flags"]
             if all(flag in seen["flags"] for seen in seen_by)]))
    table = {"center": _common_zones([table["center"] for table in seat_tables]),
             "seats": seats, "turn": first["turn"]}
    notes = {table.get("note") for table in seat_tables}
    if len(notes) == 1 and first.get("note"):
        table["note"] = first["note"]
    return table


def _common_zones(drawn: Sequence[Sequence[Zone]]) -> list[Zone]:
    """The zones every table draws (by title), each with what they all draw alike."""
    common = []
    for found in drawn[0]:
        alike = [next((z for z in zones if z["title"] == found["title"]), None)
                 for zones in drawn]
        if any(z is None for z in alike):
            continue
        zones = [z for z in alike if z is not None]
        notes, styles = {z["note"] for z in zones}, {z["style"] for z in zones}
        common.append(zone(found["title"], _common_cards([z["cards"] for z in zones]),
                           found["note"] if len(notes) == 1 else "",
                           found["style"] if len(styles) == 1 else "row"))
    return common


def _common_cards(drawn: Sequence[list[Card]]) -> list[Card]:
    """The cards every table draws alike, the others face down."""
    return [column[0] if all(card == column[0] for card in column) else BACK
            for column in zip(*drawn)]
