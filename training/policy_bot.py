"""A weight file as a bot: ``python -m training.policy_bot --policy FILE.npz --address {address}``.

It loads the ``.npz`` (:class:`training.policy.MLPPolicy`), encodes each DecisionRequest
with ``encode_request`` and answers the legal action of the id its policy scores highest:
the tensor and ids it trained on, with no glue. It lives in ``training/`` (the SDK's
``bots/`` imports no training code) and the sandbox shows ``training/`` to every Python
bot, as it shows ``bots/``; the weight file goes in the entry's ``dir:``. The bot's name is
the file's stem unless ``--name`` says otherwise; it claims the games whose encoder has the
file's shape (its tensor size in, its vocabulary out).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Sequence

from bots.sdk import serve
from training.policy import MLPPolicy, PolicyBot


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    parser.add_argument("--policy", type=Path, required=True, help="the .npz weight file")
    parser.add_argument("--name", default=None, help="the bot's name (default: the file's)")
    known, rest = parser.parse_known_args(argv)
    try:
        policy = MLPPolicy.load(known.policy)
    except (OSError, ValueError) as error:
        parser.exit(2, f"{known.policy}: not a weight file this bot can load: {error}\n")
    if not policy.games():
        parser.exit(2, f"{known.policy}: {policy.shape[0]} inputs and {policy.shape[1]} outputs "
                       f"fit no game's encoder\n")
    serve(PolicyBot(policy, known.name or known.policy.stem, policy.games()), rest)


if __name__ == "__main__":
    main()
