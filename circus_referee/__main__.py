"""``python -m circus_referee``: the command line, as the ``circus-referee`` script runs it."""

from circus_referee.main import main

if __name__ == "__main__":
    main()
