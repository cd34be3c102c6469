"""The Java stdio example (bots/stdio/java): Gson from Debian, one jar, the JVM in a sandbox.

It passes check-bot under a tournament's memory limit of 128 MB with its memory flags; a
class path of folders and jars is granted in the sandbox; a JVM that cannot start (no class,
no heap) is told what the sandbox showed it. Built with ``make -C bots/stdio/java`` from
Debian's openjdk-17-jdk-headless and libgoogle-gson-java (scripts/install-system-packages).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_cpp_bot import make_once

from circus_referee.main import main
from referee.process import BotProcess
from referee.sandbox import Isolation, named_files

ROOT = Path(__file__).resolve().parent.parent
JAVA = ROOT / "bots" / "stdio" / "java"
GSON = Path("/usr/share/java/gson.jar")
#: What the JVM needs to start under a bot's memory_mb: a heap of its own size, not one
#: sized from the host's memory, and the collector with the fewest threads.
MEMORY_FLAGS = "-Xmx64m -XX:+UseSerialGC"


@pytest.fixture(scope="module")
def java_bot() -> Path:
    missing = [tool for tool in ("javac", "java", "jar") if shutil.which(tool) is None]
    if missing or not GSON.exists():
        pytest.fail(f"the Java example needs a JDK ({', '.join(missing) or 'found'}) and "
                    f"{GSON} (libgoogle-gson-java): scripts/install-system-packages")
    jar = JAVA / "build" / "stdio-random.jar"
    built = make_once(["make", "-C", str(JAVA)], jar)
    assert built.returncode == 0, built.stdout + built.stderr
    return jar


def check(*args: str):
    """Check-bot at a tournament's 128 MB, each seat once (the full rotation of every seat
    of every count has its own test, tests/test_check_bot.py)."""
    return CliRunner().invoke(main, ["check-bot", "--transport", "stdio", "--rotation", "once",
                                     "--memory-mb", "128", *args])


def test_the_java_example_passes_check_bot_at_128_mb(java_bot):
    result = check("--command", f"java {MEMORY_FLAGS} -jar {java_bot.relative_to(ROOT)}",
                   "--game", "flohcati")
    assert result.exit_code == 0, result.output
    assert "PASS  play flohcati/en" in result.output and "PASS  play flohcati/es" \
        in result.output and "3 games at once on 3 processes" in result.output, result.output


def test_each_entry_of_a_class_path_is_granted(tmp_path):
    (tmp_path / "classes").mkdir()
    (tmp_path / "lib.jar").touch()
    argv = ["java", "-cp", "classes:lib.jar:absent.jar", "Main", "--class-path=classes"]
    assert named_files(argv, tmp_path) == [tmp_path / "classes", tmp_path / "lib.jar",
                                           tmp_path / "classes"]


def test_a_class_path_of_a_folder_and_a_jar_runs_sandboxed(java_bot):
    classes = java_bot.parent.relative_to(ROOT) / "classes"
    result = check("--command", f"java {MEMORY_FLAGS} -cp {classes}:{GSON} RandomBot",
                   "--game", "flea-circus", "--at-once", "1")
    assert result.exit_code == 0, result.output


def test_a_class_the_jvm_cannot_find_is_told_what_the_sandbox_shows(java_bot):
    """Gson left off the class path: the JVM's class not found gets the sandbox's account,
    as a missing file does."""
    classes = java_bot.parent.relative_to(ROOT) / "classes"
    result = check("--command", f"java {MEMORY_FLAGS} -cp {classes} RandomBot",
                   "--game", "flea-circus", "--at-once", "1")
    assert result.exit_code == 1, result.output
    handshake = next(line for line in result.output.splitlines() if "handshake" in line)
    assert "NoClassDefFoundError: com/google/gson/" in handshake, handshake
    assert f"in the sandbox it ran in {Path.cwd()}, its program java is /" in handshake
    assert f"it sees only {ROOT / classes} (its dir:" in handshake, handshake


def test_a_jvm_that_cannot_have_its_heap_is_told_of_xmx(java_bot):
    """A heap over the bot's memory: the JVM's fatal error report goes to stdout, and
    is read as the reply to Hello."""
    result = check("--command", f"java -Xms256m -jar {java_bot.relative_to(ROOT)}",
                   "--game", "flea-circus", "--at-once", "1")
    assert result.exit_code == 1, result.output
    handshake = next(line for line in result.output.splitlines() if "handshake" in line)
    assert "is how a JVM's fatal error report starts, on stdout" in handshake, handshake
    assert "needs -Xmx under the bot's memory_mb" in handshake, handshake


def test_a_jvm_without_memory_flags_starts_under_the_bots_limit(java_bot):
    """The JVM is told the limit (JAVA_TOOL_OPTIONS' MaxRAM): with no -Xmx it sizes its heap
    from the bot's 128 MB, not from the host's memory."""
    result = check("--command", f"java -jar {java_bot.relative_to(ROOT)}",
                   "--game", "flea-circus", "--at-once", "1")
    assert result.exit_code == 0, result.output
    assert "Picked up JAVA_TOOL_OPTIONS: -XX:MaxRAM=128m -XX:-UsePerfData" in result.output, \
        result.output


@pytest.mark.parametrize("sandboxed", [True, False])
def test_runtimes_are_told_the_memory_limit_unless_the_entry_says_otherwise(tmp_path, sandboxed):
    script = tmp_path / "env.sh"
    script.write_text('echo "java=$JAVA_TOOL_OPTIONS go=$GOMEMLIMIT" >&2\n')
    told = BotProcess("told", f"sh {script}", tmp_path / "told.log", memory_mb=200,
                      isolation=Isolation(sandbox=sandboxed, env=(("GOMEMLIMIT", "50MiB"),)),
                      stdio=True)
    told.start()
    told.wait(30)
    told.stop()
    assert "java=-XX:MaxRAM=200m -XX:-UsePerfData -Xlog:disable -Xlog:all=warning:stderr " \
        "go=50MiB" in (tmp_path / "told.log").read_text()
