"""The arena's store and uploads: tokens kept hashed, a versioned schema, and an upload
stored whole under its code's fingerprint or refused with one line, leaving nothing."""

from __future__ import annotations

import gzip
import io
import sqlite3
import stat
import tarfile
import zipfile

import pytest
from arena_support import FAST_HASHER, bot_files, make_config, tar_of, zip_of

from arena.config import load_arena_config
from arena.store import MIGRATIONS, ArenaStore
from arena.uploads import LimitReached, UploadRefused, accept
from tournaments.config import ConfigError
from tournaments.store import Store, StoreError


@pytest.fixture
def setup(tmp_path):
    config = make_config(tmp_path)
    store = ArenaStore(config.db, FAST_HASHER)
    store.add_entrant("alice")
    yield config, store, store.entrant("alice")
    store.close()


def test_a_token_is_kept_only_hashed_and_names_its_holder(tmp_path):
    store = ArenaStore(tmp_path / "a.sqlite", FAST_HASHER)
    token = store.add_entrant("alice")
    key, _, secret = token.partition("_")
    assert store.holder(token).name == "alice"
    assert store.holder(f"{key}_wrong") is None and store.holder(secret) is None
    raw = (tmp_path / "a.sqlite").read_bytes() + (tmp_path / "a.sqlite-wal").read_bytes()
    assert secret.encode() not in raw


def test_the_schema_carries_its_version_and_an_older_file_is_migrated(tmp_path):
    path = tmp_path / "a.sqlite"
    ArenaStore(path, FAST_HASHER).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE arena_meta SET value = '0'")
    for (table,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND "
                               "name LIKE 'arena_%' AND name != 'arena_meta'").fetchall():
        db.execute(f"DROP TABLE {table}")
    db.commit()
    db.close()
    store = ArenaStore(path, FAST_HASHER)
    assert store.schema_version() == len(MIGRATIONS)
    assert store.add_entrant("bob")


def test_a_store_of_an_earlier_schema_gets_the_later_migrations(tmp_path):
    path = tmp_path / "a.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE arena_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO arena_meta VALUES ('schema', '1')")
    for statement in MIGRATIONS[0]:
        db.execute(statement)
    db.execute("INSERT INTO arena_entrants VALUES ('ann', 'entrant', 'k', 'h', NULL, 'now')")
    db.commit()
    db.close()
    store = ArenaStore(path, FAST_HASHER)
    assert store.schema_version() == len(MIGRATIONS)
    assert store.entrant("ann") is not None and store.alike(0.0) == []
    assert store.invites() == [] and store.unrated_queue() == []
    assert store.webhook("ann") is None and store.session_holder("x") is None


def test_a_store_from_a_newer_circus_referee_is_refused_unchanged(tmp_path):
    path = tmp_path / "a.sqlite"
    ArenaStore(path, FAST_HASHER).close()
    db = sqlite3.connect(path)
    db.execute("UPDATE arena_meta SET value = '7' WHERE key = 'schema'")
    db.commit()
    db.close()
    with pytest.raises(StoreError, match=f"its arena tables are at schema version 7, newer "
                                         f"than this circus-referee's {len(MIGRATIONS)}"):
        ArenaStore(path, FAST_HASHER)
    assert sqlite3.connect(path).execute("SELECT value FROM arena_meta WHERE key = 'schema'"
                                         ).fetchone() == ("7",)


def test_the_arena_lives_in_the_tournaments_database_file(setup):
    config, store, _alice = setup
    games = Store(config.db)
    assert games.tournaments() == [] and store.entrant("alice") is not None
    assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


@pytest.mark.parametrize("name", ["../x", "a b", "x" * 57, "alice"])
def test_an_entrant_name_must_be_a_bot_name_of_its_own(setup, name):
    _config, store, _alice = setup
    with pytest.raises(ConfigError):
        store.add_entrant(name)


def test_an_upload_is_stored_by_fingerprint_and_again_is_the_same_version(setup):
    config, store, alice = setup
    first = accept(config, store, alice, zip_of(bot_files()))
    assert first.new and first.version.id == "alice.v1" and first.version.state == "queued"
    assert first.version.folder == config.versions_dir / "alice" / first.version.fingerprint
    assert (first.version.folder / "bot.py").is_file()
    assert first.version.entry["dir"] == str(first.version.folder)
    # The same code in a .tar.gz with a top folder is the same version.
    again = accept(config, store, alice, tar_of({f"mybot/{name}": data
                                                 for name, data in bot_files().items()}))
    assert not again.new and again.version.id == "alice.v1"
    changed = accept(config, store, alice, zip_of(bot_files(extra="# v2\n")))
    assert changed.new and changed.version.id == "alice.v2"
    assert list(config.staging_dir.iterdir()) == []


def test_an_executable_keeps_its_mode(setup):
    config, store, alice = setup
    memory = io.BytesIO()
    with zipfile.ZipFile(memory, "w") as archive:
        for name, data in bot_files(command="./bot.py").items():
            info = zipfile.ZipInfo(name)
            info.external_attr = (stat.S_IFREG | (0o755 if name == "bot.py" else 0o644)) << 16
            archive.writestr(info, data)
    version = accept(config, store, alice, memory.getvalue()).version
    assert (version.folder / "bot.py").stat().st_mode & stat.S_IXUSR
    assert not (version.folder / "entrant.yaml").stat().st_mode & stat.S_IXUSR


def special(name: str, kind: bytes, target: str = "") -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def zip_link() -> bytes:
    memory = io.BytesIO()
    with zipfile.ZipFile(memory, "w") as archive:
        for name, data in bot_files().items():
            archive.writestr(name, data)
        info = zipfile.ZipInfo("secret")
        info.external_attr = (stat.S_IFLNK | 0o777) << 16
        archive.writestr(info, "/etc/passwd")
    return memory.getvalue()


def tar_header_bomb() -> bytes:
    """A .tar.gz of a few kilobytes whose first header says a name of two megabytes
    follows (tarfile reads a long name whole, in memory)."""
    header = special("././@LongLink", tarfile.GNUTYPE_LONGNAME)
    header.size = 2 << 20
    return gzip.compress(header.tobuf(tarfile.GNU_FORMAT) + bytes(header.size + 1024))


def zip_bad_checksum() -> bytes:
    data = bytearray(zip_of({**bot_files(), "data": bytes(range(256)) * 40}))
    data[data.index(b"data") + 30] ^= 0xff   # in the member's compressed bytes
    return bytes(data)


BAD_UPLOADS = {
    "not an archive": (b"hello", "not a .zip or .tar.gz"),
    "a corrupt zip": (zip_of(bot_files())[:60], "corrupt .zip"),
    "a corrupt tar.gz": (tar_of(bot_files())[:40], "corrupt .tar.gz"),
    "a path with ..": (zip_of({**bot_files(), "../evil.py": b"x"}), "unsafe path"),
    "an absolute path": (tar_of({**bot_files(), "/tmp/evil.py": b"x"}), "unsafe path"),
    "a symlink in a tar": (tar_of(bot_files(), (special("link", tarfile.SYMTYPE, "/etc"),)),
                           "not a plain file"),
    "a hard link": (tar_of(bot_files(), (special("hard", tarfile.LNKTYPE, "bot.py"),)),
                    "not a plain file"),
    "a device": (tar_of(bot_files(), (special("null", tarfile.CHRTYPE),)), "not a plain file"),
    "a pipe": (tar_of(bot_files(), (special("fifo", tarfile.FIFOTYPE),)), "not a plain file"),
    "a symlink in a zip": (zip_link(), "not a plain file"),
    "a zip bomb": (zip_of({**bot_files(), "zeros": bytes(2 << 20)}), "unpacks to more than"),
    "too many files": (zip_of({**bot_files(), **{f"f{n}": b"" for n in range(30)}}),
                       "more than 20 files"),
    "no manifest": (zip_of({"bot.py": b"print()"}), "no entrant.yaml"),
    "a bad manifest": (zip_of({**bot_files(), "entrant.yaml": b"name: x\n"}),
                       "missing required key"),
    "a name twice": (zip_of({**bot_files(), "bot.py/x": b""}), "cannot be unpacked"),
    "a control character in a name": (tar_of({**bot_files(), "a\x1b[2Jb": b""}),
                                      "a control character"),
    "a tar.gz cut short in a file": (
        tar_of({**bot_files(), "data": bytes(range(256)) * 400})[:600], "corrupt .tar.gz"),
    "a zip's bad checksum": (zip_bad_checksum(), "corrupt .zip"),
    "a tar header's huge name": (tar_header_bomb(), "tar stream unpacks to more than"),
    "a number of 5000 digits in the manifest": (
        zip_of({**bot_files(), "entrant.yaml": b"name: " + b"1" * 5000 + b"\n"}),
        "not valid YAML: Exceeds the limit"),
    "a huge manifest": (zip_of({**bot_files(), "entrant.yaml": bot_files()["entrant.yaml"]
                                + b"#" * (64 << 10)}), "entrant.yaml is over"),
}


@pytest.mark.parametrize("case", sorted(BAD_UPLOADS))
def test_a_bad_upload_says_why_in_one_line_and_stores_nothing(setup, case):
    config, store, alice = setup
    data, problem = BAD_UPLOADS[case]
    with pytest.raises(UploadRefused, match=problem) as refused:
        accept(config, store, alice, data)
    assert "\n" not in str(refused.value)
    assert store.versions() == []
    assert not config.versions_dir.exists() or not any(config.versions_dir.rglob("*"))
    assert not any(config.staging_dir.iterdir())


def test_a_yaml_bomb_in_the_manifest_is_refused_in_a_short_line(setup):
    """Each level an alias list of ten of the one before: a million strings, in a line
    as long as its repr unless the repr is cut short."""
    config, store, alice = setup
    levels = ["&l0 [" + ", ".join(["xxxxxxxx"] * 10) + "]"] + [
        f"&l{level} [" + ", ".join([f"*l{level - 1}"] * 10) + "]" for level in range(1, 6)]
    manifest = bot_files()["entrant.yaml"].decode().replace(
        "command: python bot.py", f"command: [{', '.join(levels)}]")
    with pytest.raises(UploadRefused, match="'command' must be str, not") as refused:
        accept(config, store, alice, zip_of({**bot_files(), "entrant.yaml": manifest.encode()}))
    assert len(str(refused.value)) < 1000


def test_an_archive_over_the_upload_limit_is_refused(setup):
    config, store, alice = setup
    with pytest.raises(UploadRefused, match="over the limit"):
        accept(config, store, alice, bytes(config.limits.upload_bytes + 1))


def test_an_entrant_submits_no_more_versions_a_day_than_its_limit(tmp_path):
    config = make_config(tmp_path)
    store = ArenaStore(config.db, FAST_HASHER)
    store.add_entrant("carol", per_day=2)
    carol = store.entrant("carol")
    for number in range(2):
        accept(config, store, carol, zip_of(bot_files(extra=f"# {number}\n")))
    with pytest.raises(LimitReached, match="2 versions in the last 24 hours"):
        accept(config, store, carol, zip_of(bot_files(extra="# 3\n")))
    assert len(store.versions("carol")) == 2


def test_a_command_naming_another_entrants_files_is_refused(setup):
    config, store, _alice = setup
    store.add_entrant("bob")
    bob = accept(config, store, store.entrant("bob"), zip_of(bot_files())).version
    command = f"python ../../bob/{bob.fingerprint}/bot.py"
    with pytest.raises(UploadRefused, match="outside its folder"):
        accept(config, store, store.entrant("alice"), zip_of(bot_files(command=command)))
    assert store.versions("alice") == []
    assert not any((config.versions_dir / "alice").iterdir())


def test_a_tar_made_as_the_curl_line_makes_it_is_taken(setup, tmp_path):
    """``tar czf bot.tar.gz -C mybot .``: a top "./" and members "./NAME"."""
    config, store, alice = setup
    folder = tmp_path / "mybot"
    folder.mkdir()
    for name, data in bot_files().items():
        (folder / name).write_bytes(data)
    memory = io.BytesIO()
    with tarfile.open(fileobj=memory, mode="w:gz") as archive:
        archive.add(folder, ".")
    assert accept(config, store, alice, memory.getvalue()).version.id == "alice.v1"


@pytest.mark.parametrize("text, problem", [
    ("arena: {prot: 8080}\n", "unknown key arena.'prot' (did you mean 'port'?"),
    ("arena: {port: 0}\n", "'arena.port' must be at least 1"),
    ("arena: {port: 70000}\n", "'arena.port' must be at most 65535"),
    ("arena: {max_files: many}\n", "'max_files' must be int"),
    ("game: flea-circus\n", "unknown key 'game'"),
    ("ladder: [a]\n", "'ladder' must be dict"),
    ("arena: {similar_code: 2}\n", "'arena.similar_code' must be a share over 0"),
    ("ladder: {game: chess}\n", "chess"),
    ("ladder: {match: {time: {move_ms: -1}}}\n", "move_ms"),
])
def test_a_bad_arena_config_is_one_line_naming_its_key(tmp_path, text, problem):
    (tmp_path / "arena.yaml").write_text(text)
    with pytest.raises(ConfigError) as refused:
        load_arena_config(tmp_path / "arena.yaml")
    assert problem in str(refused.value) and "\n" not in str(refused.value)
    assert str(refused.value).startswith(str(tmp_path / "arena.yaml"))
