"""Every code example of README.md and the docs pages works: the `>>>` examples run as doctests,
every `cardroom SUBCOMMAND --flag` (and `python -m server.… --flag`) names a real command and
real flags, and every `make TARGET` is a target of the Makefile."""

from __future__ import annotations

import doctest
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.markdown import ROOT, code_lines, pages

COMMANDS = ("serve", "sim", "bench", "arena", "bot", "play", "fuzz", "soak", "loadtest", "verify")
WITH_WHAT = ("sim", "bench")  # `cardroom sim GAME`, `cardroom bench WHAT`
CARDROOM = re.compile(r"(?:^|[\s/(])cardroom\s+(.*)$")
PYTHON_M = re.compile(r"(?:^|\s)python3?\s+-m\s+((?:server|protocol|clients)\.[\w.]+)(.*)$")
MAKE = re.compile(r"(?:^|[\s(])make\s+(.*)$")
STOP = {"|", "||", "&&", ";", "&", ">", "<", "#"}


def _words(command: str) -> list[str]:
    """The words of one command, up to a pipe, a `;`, a redirection or a comment."""
    try:
        words = shlex.split(command, comments=True)
    except ValueError:  # an example with an ellipsis inside quotes, say
        words = command.split()
    out = []
    for word in words:
        if word in STOP or word.startswith("#"):
            break
        out.append(word)
    return out


def _flags(words: list[str]) -> list[str]:
    found = []
    for word in words:
        word = word.strip("[]()").split("=", 1)[0]
        if word.startswith("--") and len(word) > 2:
            found.append(word)
    return found


def _examples() -> tuple[dict[str, set[str]], dict[str, set[str]], dict[str, set[str]]]:
    """Flags named per `cardroom` command and per `python -m` module, and make targets, each
    with the pages that name them."""
    commands: dict[str, set[str]] = {}
    modules: dict[str, set[str]] = {}
    targets: dict[str, set[str]] = {}
    for page in pages():
        for line in code_lines(page.read_text(encoding="utf-8")):
            if m := CARDROOM.search(line):
                words = _words(m.group(1))
                if not words or not re.fullmatch(r"[a-z]+", words[0]):
                    continue  # `cardroom` alone, or a placeholder
                key = words[0]
                rest = words[1:]
                if key in WITH_WHAT and rest and not rest[0].startswith("-"):
                    key, rest = f"{key} {rest[0]}", rest[1:]
                for flag in ["", *_flags(rest)]:
                    commands.setdefault(f"{key} {flag}".strip(), set()).add(page.name)
            if m := PYTHON_M.search(line):
                for flag in ["", *_flags(_words(m.group(2)))]:
                    modules.setdefault(f"{m.group(1)} {flag}".strip(), set()).add(page.name)
            if m := MAKE.search(line):
                for word in _words(m.group(1)):
                    if "=" in word or not re.fullmatch(r"[\w./-]+", word) or word.startswith("-"):
                        break
                    targets.setdefault(word, set()).add(page.name)
    return commands, modules, targets


# Run in a child process: every subcommand's parser, captured where its module parses its
# arguments (argparse's parse_args raises with the parser in hand), without running anything.
CAPTURE = r"""
import argparse, contextlib, importlib, inspect, io, json, sys

class Captured(Exception):
    pass

def capture(self, args=None, namespace=None):
    raise Captured(self)

argparse.ArgumentParser.parse_args = capture
from server import cli

def parser_of(call):
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            call()
    except Captured as exc:
        p = exc.args[0]
        return sorted(s for a in p._actions for s in a.option_strings)
    except SystemExit:
        return None
    return None

out = {}
for key in json.loads(sys.argv[1]):
    if key.startswith("python -m "):
        module = importlib.import_module(key[len("python -m "):])
        main = getattr(module, "main", None)
        if main is None:
            out[key] = []
        elif inspect.signature(main).parameters:
            out[key] = parser_of(lambda: main([]))
        else:  # a main() that reads sys.argv
            sys.argv = [key]
            out[key] = parser_of(main)
    else:
        out[key] = parser_of(lambda: cli.main(key.split()))
print(json.dumps(out))
"""


def _parsers(keys: list[str]) -> dict[str, list[str] | None]:
    done = subprocess.run(
        [sys.executable, "-c", CAPTURE, json.dumps(keys)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    parsers: dict[str, list[str] | None] = json.loads(done.stdout.splitlines()[-1])
    return parsers


@pytest.mark.slow
def test_every_cardroom_command_and_flag_in_the_docs_exists() -> None:
    commands, modules, _ = _examples()
    assert "serve --redis" in commands and "bench redis --cluster" in commands  # found some
    wanted = sorted({k.split(" --")[0] for k in commands})
    unknown = [k for k in wanted if k.split()[0] not in COMMANDS]
    assert unknown == [], {k: commands[k] for k in unknown}
    plain = sorted({f"python -m {k.split(' --')[0]}" for k in modules})
    parsers = _parsers(wanted + plain)
    missing = []
    for key, where in sorted(commands.items()):
        command, _, flag = key.partition(" --")
        options = parsers[command]
        if options is None:
            missing.append(f"cardroom {command} (in {sorted(where)}): no such command")
        elif flag and f"--{flag}" not in options:
            missing.append(f"cardroom {command} --{flag} (in {sorted(where)}): no such flag")
    for key, where in sorted(modules.items()):
        module, _, flag = key.partition(" --")
        options = parsers[f"python -m {module}"]
        if flag and (options is None or f"--{flag}" not in options):
            missing.append(f"python -m {module} --{flag} (in {sorted(where)}): no such flag")
    assert missing == []


def test_every_python_module_in_the_docs_exists() -> None:
    _, modules, _ = _examples()
    names = {k.split(" --")[0] for k in modules}
    assert "server.tools.paired" in names
    for name in sorted(names):
        assert (ROOT / (name.replace(".", "/") + ".py")).is_file(), name


def _make_targets() -> set[str]:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    names = {"VENV": ".venv", "BIN": ".venv/bin"}
    targets = set()
    for m in re.finditer(r"^([^\s#:=][^:=\n]*):(?!=)", text, flags=re.MULTILINE):
        for name in m.group(1).split():
            for var, value in names.items():
                name = name.replace(f"$({var})", value)
            targets.add(name)
    return targets


def test_every_make_target_in_the_docs_exists() -> None:
    _, _, targets = _examples()
    assert {"serve", "test", "docs"} <= set(targets)
    known = _make_targets()
    assert {t: sorted(w) for t, w in targets.items() if t not in known} == {}


def test_the_docs_target_builds_the_site_with_mkdocs() -> None:
    text = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^\.PHONY:.*\bdocs\b", text, flags=re.MULTILINE)
    rule = re.search(r"^docs: (.*)\n\t(.*)$", text, flags=re.MULTILINE)
    assert rule is not None
    assert "$(VENV)/.installed-dev" in rule.group(1)
    assert "$(BIN)/mkdocs build --strict" in rule.group(2) and "build/site" in rule.group(2)


DOCTEST_PAGES = [p for p in pages() if ">>> " in p.read_text(encoding="utf-8")]


@pytest.mark.parametrize("page", DOCTEST_PAGES, ids=lambda p: p.name)
def test_every_python_example_runs_as_shown(page: Path) -> None:
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testfile(str(page), module_relative=False, optionflags=flags)
    assert result.failed == 0
    assert result.attempted > 0
    assert "+SKIP" not in page.read_text(encoding="utf-8")


def test_the_example_finders_read_commands_as_a_shell_would() -> None:
    assert _words('cardroom play --rules "partner=jack_of_diamonds crack" # a comment') == [
        "cardroom",
        "play",
        "--rules",
        "partner=jack_of_diamonds crack",
    ]
    assert _flags(["[--level", "basic|strong]", "--seed=3"]) == ["--level", "--seed"]
    assert DOCTEST_PAGES, "the rules core's example is a doctest"
