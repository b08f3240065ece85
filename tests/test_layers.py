"""The package's layers: every import (inside functions too) runs down, and none runs in a circle.

The layers, from the bottom: ``caches`` (where disk caches live), ``bridge`` (cards, auctions,
files), ``language`` (features and formulas), ``system`` (the files' model and loader),
``engine`` (one seat, exactly), ``deal`` (the whole deal, and inference), ``tools`` (bidder,
proofs, checks, exports), ``ui`` (command line, page, notebook); the package's ``__init__``
(its public API) and ``__main__`` above them all.  A module may import its own layer and the
layers below; within a layer, no circle.  A display hook (``_repr_html_`` and the like) may
import the display module lazily, as python-chess's ``_repr_svg_`` does.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "canary_infer"
LAYERS = ["caches", "bridge", "language", "system", "engine", "deal", "tools", "ui", "__init__", "__main__"]


def _modules() -> dict[str, Path]:
    out = {}
    for f in PACKAGE.rglob("*.py"):
        parts = f.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = f
    return out


def _imports(name: str, path: Path, modules: dict[str, Path]) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    hooks = {id(n) for f in ast.walk(tree) if isinstance(f, ast.FunctionDef) and f.name.startswith("_repr_")
             for n in ast.walk(f)}
    found = set()
    for node in ast.walk(tree):
        if id(node) in hooks:
            continue
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                base = base[: len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{a.name}" for a in node.names)
    return {m for m in found if m in modules and m != name}


def _layer(name: str) -> int:
    parts = name.split(".")
    if len(parts) == 1:
        return LAYERS.index("__init__")
    return LAYERS.index(parts[1])


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    return {m: _imports(m, p, modules) for m, p in modules.items()}


def test_every_module_is_in_a_layer():
    for m in _modules():
        assert m == "canary_infer" or m.split(".")[1] in LAYERS, f"{m} is in no layer: add it to LAYERS"


def test_imports_run_down():
    graph = _graph()
    upward = [f"{m} imports {i}" for m, deps in graph.items() for i in sorted(deps) if _layer(i) > _layer(m)]
    assert not upward, "imports that run up a layer:\n" + "\n".join(upward)


def test_no_circle_of_imports():
    graph = _graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    circles = []

    def strong(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for v in graph:
        if v not in index:
            strong(v)
    assert not circles, f"imports in a circle: {circles}"


def test_the_checker_sees_imports_inside_functions(tmp_path):
    """The reader counts an import made inside a function (the kind that hid the old circles)."""
    mods = {"canary_infer.bridge.a": tmp_path / "a.py", "canary_infer.ui.b": tmp_path / "b.py"}
    mods["canary_infer.bridge.a"].write_text("def f():\n    from canary_infer.ui.b import g\n")
    assert _imports("canary_infer.bridge.a", mods["canary_infer.bridge.a"], mods) == {"canary_infer.ui.b"}
