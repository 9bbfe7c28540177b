"""The rules core's doctests, run on the modules as imported: compiled by mypyc, the usage
examples in their docstrings still hold.

pytest's ``--doctest-modules`` finds no doctest in an extension module (its functions are not
Python functions, so the finder skips them), so on the compiled build the examples in
``server/rules/*.py`` would silently not run. Here each module's docstrings are read from its
``.py`` source and run in the imported module's namespace, on either build.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import os

import pytest

from server.compiled import modules

FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE  # as pyproject.toml's doctest options


def docstrings(path: str) -> list[tuple[str, str, int]]:
    """Every docstring in the source file ``path``: (qualified name, text, line)."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), path)
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                name = f"{prefix}.{child.name}"
                text = ast.get_docstring(child, clean=False)
                if text:
                    found.append((name, text, child.lineno))
                visit(child, name)

    module_doc = ast.get_docstring(tree, clean=False)
    if module_doc:
        found.append(("", module_doc, 1))
    visit(tree, "")
    return found


def source_of(name: str) -> str:
    """The ``.py`` file of the rules module ``name``, beside what was imported."""
    module = importlib.import_module(name)
    base = "__init__" if name == "server.rules" else name.rsplit(".", 1)[-1]
    return os.path.join(os.path.dirname(module.__file__ or ""), base + ".py")


@pytest.mark.slow
@pytest.mark.parametrize("name", modules())
def test_the_examples_in_a_rules_modules_docstrings_hold_as_imported(name: str) -> None:
    module = importlib.import_module(name)
    source = source_of(name)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    for qualname, text, line in docstrings(source):
        test = parser.get_doctest(text, dict(vars(module)), name + qualname, source, line)
        runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_rules_core_has_examples_to_run() -> None:
    # the test above must not pass by finding nothing: the rules modules hold usage examples
    attempted = 0
    for name in modules():
        for _, text, _ in docstrings(source_of(name)):
            attempted += len(doctest.DocTestParser().get_examples(text))
    assert attempted >= 80  # 81 when this test was written
