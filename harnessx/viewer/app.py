"""`harnessx view`: a small Flask app over the runs folder, read-only, served on loopback.

Pages: runs → a search as a candidate tree (with the selected harness's lineage) → a candidate's
per-task table (filterable, paginated) → one trajectory (events, authors, gates, chain status);
plus each run's compare/eval/probe outputs. Jinja's autoescaping renders every string from a run
(trajectory text included) as text, never as HTML.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask, abort, render_template, request, send_file

from harnessx.errors import InputError
from harnessx.harness import Harness
from harnessx.harness.model import diff
from harnessx.formatting.claim import claim_line, p_text
from harnessx.formatting.judged import rungs, subset_label
from harnessx.stats import wilson
import harnessx.viewer.flipview as flipview  # by module path: the package `__init__` imports this module
import harnessx.viewer.lineage as lineage
import harnessx.viewer.tasktable as tasktable
from harnessx.viewer.store import NotFound, Run, RunsRoot

PAGE = 100          # per-task rows per page
EVENT_PAGE = 500    # trajectory events per page
GATES = ("m0", "m1", "authorship", "naive_m2", "m2", "m3", "strict_sa", "relaxed_sa", "solved", "false_abstention")
GATE_NAMES = {"m0": "M0", "m1": "M1", "authorship": "auth", "naive_m2": "nM2", "m2": "M2", "m3": "M3",
              "strict_sa": "sSA", "relaxed_sa": "rSA", "solved": "solve", "false_abstention": "FA"}  # narrow headers
SERVED = {".png": "image/png", ".html": "text/html"}  # a report page runs no script (sandboxed)
HIGHLIGHT = {"evidence": "evidence", "abandon": "abandon", "state_change": "state", "error": "error",
             "malformed": "error"}


def create_app(runs_dir: str | Path) -> Flask:
    app = Flask(__name__)
    root = RunsRoot(Path(runs_dir))
    app.config["RUNS"] = root
    app.jinja_env.globals["gate_names"] = GATE_NAMES
    app.jinja_env.globals.update(subset_label=subset_label, rungs=rungs, p_text=p_text)

    def get_run(name: str) -> Run:
        try:
            return root.run(name)
        except NotFound as exc:
            abort(404, str(exc))

    @app.get("/")
    def runs() -> str:
        return render_template("runs.html", runs=[r.overview() for r in root.runs()], root=str(runs_dir))

    @app.get("/runs/<name>")
    def run(name: str) -> str:
        r = get_run(name)
        if r.kind != "search":
            return render_template("outputs.html", run=r.overview(), outputs=r.outputs())
        claim = (r.summary or {}).get("claim")
        return render_template("search.html", run=r.overview(), tree=_tree(r.ledger), summary=r.summary,
                               heldout=r.heldout_trials(), tracking=r.tracking(),
                               lineage=_lineage(r), outputs=r.output_count(),
                               claim=claim_line(claim) if r.summary else None, certified=bool((claim or {}).get("certified")))

    @app.get("/runs/<name>/candidates/<harness_hash>")
    def candidate(name: str, harness_hash: str) -> str:
        r = get_run(name)
        try:
            row = r.row(harness_hash)
        except NotFound as exc:
            abort(404, str(exc))
        row["objective"] = with_ci(row.get("objective") or {})
        harness, parent = r.harness(harness_hash), r.harness(row["parent"]) if row.get("parent") else None
        rows = r.scores(harness_hash)
        query = tasktable.Query.from_args(request.args)
        flipped = _parent_flips(r, row.get("parent"), harness_hash) if parent else {}
        shown = tasktable.select(rows, query, flipped)
        page, pages = _page(len(shown), PAGE)
        return render_template("candidate.html", run=r.overview(), row=row, harness=harness, tracking=r.tracking(),
                               diff=diff(parent, harness) if parent and harness else "",
                               rows=shown[(page - 1) * PAGE: page * PAGE], total=len(rows), shown=len(shown),
                               page=page, pages=pages, query=query, args=query.args(), carry={},
                               choices=tasktable.choices(rows), gates=GATES, flip_against="the parent",
                               side_args={"a": row["parent"], "b": row["hash"]} if parent else None)

    @app.get("/runs/<name>/trajectories/<key>")
    def trajectory(name: str, key: str) -> str:
        r = get_run(name)
        try:
            chain = r.trajectory(key)
        except NotFound as exc:
            abort(404, str(exc))
        page, pages = _page(len(chain.events), EVENT_PAGE)
        events = chain.events[(page - 1) * EVENT_PAGE: page * EVENT_PAGE]
        score = r.score_of(key)
        return render_template("trajectory.html", run=r.overview(), key=key, chain=chain, events=events,
                               page=page, pages=pages, result=r.result(key), score=score, gates=GATES,
                               highlight=HIGHLIGHT, parent=r.parent_trial(score) if score else None)

    @app.get("/runs/<name>/trajectories/<key>.jsonl")
    def trajectory_raw(name: str, key: str):
        """The trajectory file as stored (one JSON event a line, hash-chained), as a download."""
        r = get_run(name)
        try:
            file = r.rollout_file(key)
        except NotFound as exc:
            abort(404, str(exc))
        return send_file(file, mimetype="application/x-ndjson", as_attachment=True, download_name=f"{key}.jsonl")

    def pair_source(r: Run) -> tuple[Path, dict[str, str]]:
        """The folder whose trials a flip page reads (`?at=compare`: the compare inside a search run),
        with the query arguments every link of the page carries along."""
        at, split = request.args.get("at", ""), request.args.get("split", "")
        try:
            path = r.sub(at) if at else r.path
        except NotFound as exc:
            abort(404, str(exc))
        return path, {k: v for k, v in (("at", at), ("split", split)) if v}

    @app.get("/runs/<name>/flips")
    def flips(name: str) -> str:
        r = get_run(name)
        path, carry = pair_source(r)
        try:
            view = flipview.flips(path, request.args.get("a", "R0"), request.args.get("b", "selected"),
                                  request.args.get("objective") or None, carry.get("split"))
        except NotFound as exc:
            abort(404, str(exc))
        families = {k: request.args.get(k, "") for k in ("family", "direction")}
        shown = [f for f in view["flips"] if all(not v or f[k] == v for k, v in families.items())]
        return render_template("flips.html", run=r.overview(), view=view, shown=shown, filters=families, carry=carry)

    @app.get("/runs/<name>/side")
    def side(name: str) -> str:
        r = get_run(name)
        path, carry = pair_source(r)
        try:
            view = flipview.side_by_side(path, request.args.get("a", "R0"), request.args.get("b", "selected"),
                                         request.args.get("task", ""), request.args.get("seed", type=int),
                                         carry.get("split"))
        except NotFound as exc:
            abort(404, str(exc))
        return render_template("side.html", run=r.overview(), view=view, carry=carry)

    @app.get("/runs/<name>/contenders/<harness_hash>")
    def contender(name: str, harness_hash: str) -> str:
        r = get_run(name)
        path, carry = pair_source(r)
        try:
            view = flipview.contender(path, harness_hash, carry.get("split"))
        except NotFound as exc:
            abort(404, str(exc))
        view["at"] = carry.get("at", "")
        query = tasktable.Query.from_args(request.args)
        shown = tasktable.select(view["rows"], query, view["flips"])
        page, pages = _page(len(shown), PAGE)
        first = view["first_hash"] != view["hash"]
        return render_template("contender.html", run=r.overview(), view=view, rows=shown[(page - 1) * PAGE: page * PAGE],
                               total=len(view["rows"]), shown=len(shown), page=page, pages=pages, query=query,
                               args={**carry, **query.args()}, carry=carry, choices=tasktable.choices(view["rows"]),
                               gates=GATES, flip_against=view["first"],
                               side_args={"a": view["first_hash"], "b": view["hash"], **carry} if first else None)

    @app.get("/runs/<name>/rollouts")
    def rollouts(name: str) -> str:
        """Every rollout in the run's cache, 100 a page, with what its result file says (any run kind:
        probes and benchmark runs too)."""
        r = get_run(name)
        keys = r.rollout_keys()
        page, pages = _page(len(keys), PAGE)
        shown = [{"key": k, **(r.result(k) or {})} for k in keys[(page - 1) * PAGE: page * PAGE]]
        return render_template("rollouts.html", run=r.overview(), rows=shown, total=len(keys), page=page, pages=pages)

    @app.get("/runs/<name>/outputs")
    def outputs(name: str) -> str:
        r = get_run(name)
        return render_template("outputs.html", run=r.overview(), outputs=r.outputs())

    @app.get("/runs/<name>/files/<path:rel>")
    def figure(name: str, rel: str):
        r = get_run(name)
        file = (r.path / rel).resolve()
        if file.suffix not in SERVED or r.path.resolve() not in file.parents or not file.is_file():
            abort(404, "only the PNG figures and HTML reports inside the run are served")
        response = send_file(file, mimetype=SERVED[file.suffix])
        response.headers["Content-Security-Policy"] = "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'"
        return response

    @app.errorhandler(404)
    def missing(error: Any):
        return render_template("error.html", message=getattr(error, "description", str(error))), 404

    @app.errorhandler(InputError)
    def refused(error: InputError):  # a stored file that fails its check: named, never shown as the run's
        return render_template("error.html", message=str(error)), 409

    return app


def _parent_flips(run: Run, parent: str | None, child: str) -> dict[tuple[str, int], str]:
    """(task, seed) -> gained / lost of the candidate against its parent ({} when they cannot be paired)."""
    if not parent:
        return {}
    try:
        view = flipview.flips(run.path, parent, child)
    except NotFound:
        return {}
    return {(f["task_id"], f["seed"]): f["direction"] for f in view["flips"]}


def _page(total: int, size: int) -> tuple[int, int]:
    """The requested page (1-based, `?page=`) and the page count for `total` rows of `size`."""
    return max(1, request.args.get("page", 1, type=int)), max(1, -(-total // size))


def with_ci(rate: dict[str, Any]) -> dict[str, Any]:
    """A ledger k/n without an interval gets its Wilson 95% interval (counts only; means keep theirs)."""
    k, n = rate.get("k"), rate.get("n")
    if rate.get("ci") is None and isinstance(k, int) and isinstance(n, int) and n > 0:
        return {**rate, "ci": list(wilson(k, n))}
    return rate


def _tree(ledger: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Candidates as nested nodes: each ledger row under the first row of its parent hash."""
    first: dict[str, dict[str, Any]] = {}
    nodes = []
    for i, row in enumerate(ledger):
        row["objective"] = with_ci(row.get("objective") or {})
        node = {"row": row, "children": [], "id": i}
        nodes.append(node)
        first.setdefault(row["hash"], node)
    roots = []
    for node in nodes:
        parent = node["row"].get("parent")
        holder = first.get(parent) if parent else None
        if holder is not None and holder is not node:
            holder["children"].append(node)
        else:
            roots.append(node)
    return roots


def _lineage(run: Run) -> dict[str, Any] | None:
    selected = run.selected()
    leaf_hash = selected.hash if selected else (run.checkpoint or {}).get("incumbent")
    if not leaf_hash:
        return None
    rows = lineage.chain(run.ledger, leaf_hash)
    harnesses: list[Harness] = [h for h in (run.harness(row["hash"]) for row in rows) if h is not None]
    if not rows or len(harnesses) != len(rows):
        return None
    return {"hash": leaf_hash, "final": selected is not None, "rows": rows,
            "lines": lineage.lines(rows, harnesses), "switches": lineage.switches(rows, harnesses)}
