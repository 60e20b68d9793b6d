"""The module import graph of `harnessx/` has no circle and no import running up the layers.

The graph is read from the source with `ast`: every `import harnessx...` and `from ... import ...`
(absolute or relative) anywhere in a module, inside functions too (a lazy import is an arrow like any
other). Imports under `if TYPE_CHECKING:` count as well: a type named across a circle is the same
tangle as a call across it. Importing `pkg.mod` runs `pkg/__init__.py` first, so an import of a
module is an arrow to the module AND to every package above it, except the packages the importer
itself sits in (their `__init__` is already running or done when it runs). `from pkg import name`
reads the package's namespace: an arrow to `pkg` (its `__init__`) always, and to `pkg.name` when that
is a module; so a module that names its own package (`from harnessx.sim import turns` inside
`harnessx.sim`) imports that package's `__init__`, which may import it back. Strings handed to
`importlib` (the lazy provider and environment tables) are not arrows: they are the registries
through which a lower layer finds its plug-ins.

The layers, bottom up (docs/architecture.md): a module may import its own layer and the layers
below it, never one above.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "harnessx"

# Bottom up. The key is the first name under `harnessx.` (a sub-package or a top-level module).
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("base", ("stats", "errors", "tasks", "trajectory", "tools", "failpoints", "validation", "stored",
              "io_read", "io_write", "extras", "logs", "plugins", "lazy_exports")),
    ("harness, models", ("harness", "models")),
    ("model providers", ("sim", "local")),  # they register with models/; models/ never names them
    ("envs", ("envs",)),
    ("rollout", ("agent", "executors")),  # runtime, executors, runner, rollout keys
    ("scoring, formatting", ("scoring", "formatting")),  # formatting: cells (k/n, CI), tables, documents
    ("benchmarks", ("benchmarks", "kapro", "cf", "feasigen")),
    ("evaluation", ("evaluation", "ground_truth")),
    ("search, comparison, probes", ("search", "comparison", "probes")),
    ("report, viewer", ("report", "viewer")),
    ("cli", ("cli",)),
]

# Imports that run up the layers today, each with the reason it stays for now: (importer, imported).
KNOWN_UP: dict[tuple[str, str], str] = {}


def layer_of(module: str) -> int | None:
    parts = module.split(".")
    if len(parts) == 1:
        return None  # harnessx/__init__.py
    for rank, (_, names) in enumerate(LAYERS):
        if parts[1] in names:
            return rank
    raise AssertionError(f"{module}: `{parts[1]}` is in no layer; add it to LAYERS in {Path(__file__).name}")


def modules(root: Path = PACKAGE) -> dict[str, tuple[Path, bool]]:
    found = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        found[".".join(parts[:-1] if is_package else parts)] = (path, is_package)
    return found


def enclosing(name: str) -> list[str]:
    """The packages whose `__init__` runs before module `name` does, below the root `harnessx`."""
    parts = name.split(".")
    return [".".join(parts[:i]) for i in range(2, len(parts))]


def named(node: ast.AST, package: str) -> list[tuple[str, list[str]]]:
    """(module named, names taken from it) for each harnessx import of one statement."""
    if isinstance(node, ast.Import):
        return [(alias.name, []) for alias in node.names if alias.name.split(".")[0] == "harnessx"]
    if not isinstance(node, ast.ImportFrom):
        return []
    if node.level:
        base_parts = package.split(".")[: len(package.split(".")) - (node.level - 1)]
        base = ".".join(base_parts + ([node.module] if node.module else []))
    else:
        base = node.module or ""
    return [(base, [alias.name for alias in node.names])] if base.split(".")[0] == "harnessx" else []


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the harnessx modules it imports."""
    found = modules(root)

    def known(name: str) -> str | None:
        while name and name not in found:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {}
    for module, (path, is_package) in found.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        package = module if is_package else module.rpartition(".")[0]
        own = {module, *enclosing(module)}  # already initialising when this module runs

        def imported(name: str | None) -> set[str]:
            """Importing `name` runs it and the `__init__` of each package above it not yet running."""
            return {name, *(p for p in enclosing(name) if p not in own and p in found)} if name else set()

        targets: set[str] = set()
        for node in ast.walk(tree):
            for base, names in named(node, package):
                targets |= imported(known(base))  # its namespace is read, even when it is the own package
                targets.update(*(imported(f"{base}.{name}") for name in names if f"{base}.{name}" in found))
        targets.discard(module)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def cycle_in(component: list[str], graph: dict[str, set[str]]) -> list[str]:
    """One closed path through a circle, for the message: a -> b -> ... -> a."""
    members = set(component)
    path = [component[0]]
    seen = {component[0]: 0}
    while True:
        nxt = sorted(graph[path[-1]] & members)[0]
        if nxt in seen:
            return path[seen[nxt]:] + [nxt]
        seen[nxt] = len(path)
        path.append(nxt)


def up_arrows(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets
                  if layer_of(a) is not None and layer_of(b) is not None and layer_of(b) > layer_of(a))


def test_no_import_circle_and_no_import_up_the_layers():
    graph = import_graph()
    found = circles(graph)
    up = [arrow for arrow in up_arrows(graph) if arrow not in KNOWN_UP]
    arrows = sum(len(targets) for targets in graph.values())
    lines = [f"import graph of harnessx/: {len(graph)} modules, {arrows} arrows, {len(found)} circles, "
             f"{len(up)} up-arrows"]
    lines += ["circle: " + " -> ".join(cycle_in(c, graph)) for c in found]
    lines += [f"up: {a} ({LAYERS[layer_of(a)][0]}) -> {b} ({LAYERS[layer_of(b)][0]})" for a, b in up]
    assert not found and not up, "\n".join(lines)


def test_known_exceptions_are_still_needed():
    """An entry of KNOWN_UP that the code no longer has must go, so the list only shrinks."""
    present = set(up_arrows(import_graph()))
    assert not [arrow for arrow in KNOWN_UP if arrow not in present]


def test_the_graph_sees_lazy_relative_and_from_imports(tmp_path):
    pkg = tmp_path / "harnessx"
    (pkg / "a").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "a" / "__init__.py").write_text("from . import b\n")
    (pkg / "a" / "b.py").write_text("def f():\n    from harnessx.c import thing\n")
    (pkg / "c.py").write_text("import typing\nif typing.TYPE_CHECKING:\n    from harnessx.a import Thing\n"
                              "from .a.b import f\n")
    (pkg / "d.py").write_text("import harnessx.a.b as alias\n")
    graph = import_graph(pkg)
    assert graph == {"harnessx": set(), "harnessx.a": {"harnessx.a.b"}, "harnessx.a.b": {"harnessx.c"},
                     "harnessx.c": {"harnessx.a", "harnessx.a.b"}, "harnessx.d": {"harnessx.a", "harnessx.a.b"}}
    assert circles(graph) == [["harnessx.a", "harnessx.a.b", "harnessx.c"]]
    assert cycle_in(["harnessx.a.b", "harnessx.c"], graph) == ["harnessx.a.b", "harnessx.c", "harnessx.a.b"]


def test_a_circle_through_a_package_init_is_found(tmp_path):
    """`from harnessx.p import m` runs `p/__init__.py`, and so does importing any module inside `p`."""
    pkg = tmp_path / "harnessx"
    (pkg / "p").mkdir(parents=True)
    (pkg / "s").mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "p" / "__init__.py").write_text("from harnessx.q import thing\n")  # the package imports q ...
    (pkg / "p" / "m.py").write_text("")
    (pkg / "q.py").write_text("from harnessx.p import m\n")  # ... and q imports a module of the package
    (pkg / "s" / "__init__.py").write_text("from harnessx.s.turns import add\n")
    (pkg / "s" / "turns.py").write_text("def add(): ...\n")
    (pkg / "s" / "policy.py").write_text("from harnessx.s import turns\n")  # names its own package
    (pkg / "s" / "ok.py").write_text("from harnessx.s.turns import add\n")  # by module path: no arrow to s
    graph = import_graph(pkg)
    assert graph["harnessx.q"] == {"harnessx.p", "harnessx.p.m"}
    assert graph["harnessx.s.policy"] == {"harnessx.s", "harnessx.s.turns"}
    assert graph["harnessx.s.ok"] == {"harnessx.s.turns"}
    assert circles(graph) == [["harnessx.p", "harnessx.q"]]
    (pkg / "s" / "__init__.py").write_text("from harnessx.s.policy import turns\n")
    assert ["harnessx.s", "harnessx.s.policy"] in circles(import_graph(pkg))
