"""The layout holds: every import points down the stack, and no module imports itself back.

The stack, top to bottom (docs/architecture.md): the CLI (``circus_referee``) and
bench; the arena (the season as a web service); the pages (everything that renders HTML,
over what it shows); tournaments (many games) and training (the learning environments) side
by side;
ratings (only rating, importing nothing of the project but the outcomes); the referee (one
game) and the bots with their SDK side by side, both standing on the rules engines
(``referee.games``); the protocol stubs. Beneath them all, the outcomes
(``circus_outcomes``) that the referee decides and the store and the ratings count,
importing nothing. Walking the source with
``ast`` catches an upward or circular import the moment it is written, lazy
imports inside functions included.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("circus_referee", "bench", "arena", "pages", "tournaments", "training", "ratings",
            "referee", "bots", "circus_outcomes")
#: The ground beneath every layer: the outcomes' one definition (fault class, policy, game
#: status), which every package may import and which imports nothing of the project.
OUTCOMES = "circus_outcomes"
# What each package may import from the project besides itself.
ALLOWED = {
    "circus_referee": {"arena", "pages", "tournaments", "ratings", "referee", "bots", "circus",
                       OUTCOMES},
    # The arena (the season as a service) stands on tournaments: it plays, gates and replays
    # through them, never reaching the referee itself; its pages are the pages'.
    "arena": {"pages", "tournaments", "ratings", OUTCOMES},
    # bench sits beside the CLI and measures whole commands too.
    "bench": {"circus_referee", "arena", "pages", "tournaments", "training", "ratings", "referee",
              "bots", "circus", OUTCOMES},
    # Everything that renders HTML (the report, the replays, the packs), over what it shows.
    "pages": {"tournaments", "ratings", "referee", "circus", OUTCOMES},
    "tournaments": {"ratings", "referee", "circus", OUTCOMES},
    # training (beside tournaments): the environments, playing opponents from bots in process.
    "training": {"ratings", "referee", "bots", "circus", OUTCOMES},
    "ratings": {OUTCOMES},
    # The referee calls in-process bots through its own interface (clients.InProcessBot)
    # and plays check-bot's opponents itself: it imports no bot.
    "referee": {"circus", OUTCOMES},
    "bots": {"circus", "referee", OUTCOMES},
    OUTCOMES: set(),
}
# The pure rules engines are the ground the referee and the bots both stand on:
# bots may use them (search bots play games forward on them) and nothing else of
# the referee, and the engines import nothing of the project but themselves.
BOTS_MAY_IMPORT = "referee.games"
PROJECT = set(PACKAGES) | {"circus"}


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def project_imports(path: Path) -> frozenset[str]:
    """The project modules a file imports, anywhere in it (each file parsed once for all
    the tests here)."""
    found: set[str] = set()
    package = module_name(path).rsplit(".", 1)[0] if path.name != "__init__.py" \
        else module_name(path)
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            found.add(base)
            # `from referee import wire` imports the module referee.wire.
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return frozenset(name for name in found if name.split(".")[0] in PROJECT)


def graph() -> dict[str, set[str]]:
    sources = {module_name(path): path for package in PACKAGES
               for path in (ROOT / package).rglob("*.py")}
    # A package's __init__ importing its own submodules is no cycle.
    return {name: {imported for imported in project_imports(path)
                   if imported in sources and imported != name}
            for name, path in sources.items()}


def test_every_import_points_down_the_stack():
    upward = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            for imported in project_imports(path):
                top = imported.split(".")[0]
                if top != package and top not in ALLOWED[package]:
                    upward.append(f"{path.relative_to(ROOT)} imports {imported}")
                elif package == "bots" and top == "referee" and not (
                        imported == BOTS_MAY_IMPORT
                        or imported.startswith(BOTS_MAY_IMPORT + ".")):
                    upward.append(f"{path.relative_to(ROOT)} imports {imported}")
    assert not upward, "imports against the layout:\n" + "\n".join(upward)


def test_the_rules_engines_are_ground_that_imports_nothing_above_it():
    """referee.games is pure rules: no wire, no bots, no rest of the referee."""
    above = [f"{path.relative_to(ROOT)} imports {imported}"
             for path in sorted((ROOT / "referee" / "games").rglob("*.py"))
             for imported in project_imports(path)
             if not (imported == BOTS_MAY_IMPORT or imported.startswith(BOTS_MAY_IMPORT + "."))]
    assert not above, "the engines import above themselves:\n" + "\n".join(above)


def test_the_outcomes_are_ground_that_imports_nothing_of_the_project():
    """Every layer may import the outcomes, so they may import no layer: not even the proto."""
    paths = sorted((ROOT / OUTCOMES).rglob("*.py"))
    assert paths, f"{OUTCOMES}/ is gone"
    above = [f"{path.relative_to(ROOT)} imports {imported}"
             for path in paths for imported in project_imports(path)
             if imported.split(".")[0] != OUTCOMES]
    assert not above, "the outcomes import the project:\n" + "\n".join(above)


def test_no_import_cycle():
    edges = graph()
    cycles: list[list[str]] = []
    state: dict[str, str] = {}

    def visit(name: str, trail: list[str]) -> None:
        state[name] = "open"
        for imported in sorted(edges[name]):
            if state.get(imported) == "open":
                cycles.append(trail[trail.index(imported):] + [imported])
            elif imported not in state:
                visit(imported, trail + [imported])
        state[name] = "done"

    for name in sorted(edges):
        if name not in state:
            visit(name, [name])
    assert not cycles, "import cycles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_the_walk_sees_the_imports_it_judges():
    """A guard on the guard: the graph is not empty and knows a real edge."""
    edges = graph()
    assert "tournaments.store" in edges["tournaments.runner"]
    assert "referee.games.base" in edges["referee.match"]
    assert OUTCOMES in edges["pages.report"]   # the report counts the outcomes' members
    assert "tournaments.runner" in edges["arena.ladder"]   # a ladder match is a tournament


def test_the_command_lives_in_a_package_of_the_projects_own_name():
    """A generic top-level name (``cli``) in site-packages collides with anyone's."""
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    entry = project["project"]["scripts"]["circus-referee"]
    assert entry.split(".")[0] == "circus_referee", entry
    installed = project["tool"]["setuptools"]["packages"]["find"]["include"]
    assert not any(pattern.rstrip("*") in {"cli", "main", "app", "commands"}
                   for pattern in installed), installed


#: The most lines a module of the command's package or of the runner may hold: each is one
#: area of commands or one concern of a tournament's run, so none grows back into a hub.
MODULE_LINES = 300
#: main.py only assembles the command group; a command written there grows it back.
MAIN_LINES = 40
#: The former hubs, split by area and by concern.
BOUNDED = (ROOT / "circus_referee", ROOT / "tournaments" / "run", ROOT / "tournaments" / "runner.py")


def test_the_command_line_is_assembled_by_a_small_main():
    main = ROOT / "circus_referee" / "main.py"
    assert len(main.read_text().splitlines()) <= MAIN_LINES, \
        "circus_referee/main.py holds more than the group: put commands in commands/"
    tree = ast.parse(main.read_text())
    defined = [node.name for node in tree.body
               if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name != "main"]
    assert not defined, f"main.py defines {defined}: they belong in an area's module"


def test_the_command_line_and_the_runner_are_split_into_small_modules():
    paths = [path for place in BOUNDED
             for path in (sorted(place.rglob("*.py")) if place.is_dir() else [place])]
    assert len(paths) > 10, paths   # the walk finds the modules it bounds
    long = [f"{path.relative_to(ROOT)}: {lines} lines" for path in paths
            if (lines := len(path.read_text().splitlines())) > MODULE_LINES]
    assert not long, f"modules over {MODULE_LINES} lines (split by area or concern):\n" \
        + "\n".join(long)
