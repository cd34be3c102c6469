"""A greedy Amazing Flea Circus bot: the play that gains the most loot now.

It values each play by the loot it brings this turn (stealing counts a little
more than taking from the Earth, since it also costs a rival), strikes back
at the richest rival with a counterattack, and saves the General for when
rivals hold much loot on high pile tops.
"""

from __future__ import annotations

from bots.sdk import Bot, serve

STEAL_WEIGHT = 1.5
GENERAL_RETURN_VALUES = {"numbers": 1, "counterattack": 2}


class FleaGreedyBot(Bot):
    name = "flea-greedy"
    games = {"flea-circus": ()}

    def decide(self, request) -> int:
        obs = request.observation.flea_circus
        if request.kind == "target":
            return max(range(len(request.legal_actions)),
                       key=lambda i: obs.loot[request.legal_actions[i].payload.flea_circus.target])
        values = [self.value(obs, action.payload.flea_circus) for action in request.legal_actions]
        return max(range(len(values)), key=lambda i: (values[i], -i))

    def value(self, obs, action) -> float:
        card, count = action.card, action.count
        others = [(obs.seat + step) % len(obs.loot) for step in range(1, len(obs.loot))]
        if card.kind == "saucer":
            for other in others:
                pile = obs.piles[other].cards
                if pile and pile[-1].saucer == card.saucer:
                    return STEAL_WEIGHT * min(card.value, obs.loot[other])
            return min(card.value, obs.earth)
        if card.kind == "numbers":
            return min(count, obs.earth) + 0.1 * count
        if card.kind == "recruitment":
            tops = sum(1 for pile in obs.piles if pile.cards and pile.cards[-1].kind == "recruitment")
            return min(tops + 1, obs.earth)
        if card.kind == "counterattack":
            return STEAL_WEIGHT * min(2, max(obs.loot[other] for other in others))
        return self.general_value(obs, others)

    @staticmethod
    def general_value(obs, others) -> float:
        recruit_tops = sum(1 for pile in obs.piles
                           if pile.cards and pile.cards[-1].kind == "recruitment")
        taken = 0
        for other in others:
            pile = obs.piles[other].cards
            if not pile:
                continue
            top = pile[-1]
            back = top.value if top.kind == "saucer" else \
                recruit_tops if top.kind == "recruitment" else GENERAL_RETURN_VALUES.get(top.kind, 0)
            taken += min(back, obs.loot[other])
        return taken / len(others)


if __name__ == "__main__":
    serve(FleaGreedyBot())
