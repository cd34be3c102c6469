"""A bot that plays a uniformly random legal action, in every game."""

from bots.sdk import Bot, rng_for, serve


class RandomBot(Bot):
    name = "random"
    plain_requests = True   # it reads the ids and the number of legal actions, nothing else

    def decide(self, request) -> int:
        return rng_for(request).randrange(len(request.legal_actions))


if __name__ == "__main__":
    serve(RandomBot())
