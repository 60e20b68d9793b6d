"""Collect the world-distribution runs of bench/search_efficiency.py into bench/worlds.json, the
file docs/figures.py renders the design and report tables from (the runs take an hour; the figures
are recomputed from their jobs, so `docs/figures.py --check` compares them like any other).

    python bench/worlds_collect.py --report runs/report --design A=runs/design-a B=runs/design-b ... \
        [--reference runs/earlier-report] [--budgeted runs/report-at-a-budget] \
        [--design-budget A=runs/design-a-at-a-budget B=...] [--before runs/x --before-rounds runs/y]

Each run folder's jobs.jsonl is read as written (one line per finished job, with the settings that
shaped it); a design variant's label is the name the table gives it, its options are read from the
jobs' settings. The first design variant is the one the others are compared with per world.

A job records only the options it was given, so each group of runs is read against the defaults of
the code that ran it (`--defaults` for the design runs; `--report-defaults`, default this code's; and
`--before-defaults` and `--design-budget-defaults`, required with their runs); a row then still names
what ran once the shipped defaults move.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def jobs(folder: Path) -> list[dict]:
    lines = (folder / "jobs.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def options(job: dict, defaults: dict[str, str]) -> str:
    """The default rule's options the job ran with: those it was given over `defaults` (the rule's
    defaults in the code that ran it), so a row still reads right once the shipped defaults move."""
    given = {k: (int(v) if isinstance(v, float) and v.is_integer() else v) for k, v in job["settings"]["default"].items()}
    shape = {"proposals": job["settings"]["proposals"]} if job["settings"]["proposals"] != 3 else {}
    return ",".join(f"{k}={v}" for k, v in sorted({**defaults, **given, **shape}.items()))


def draws(found: list[dict]) -> str:
    numbers = sorted(int(j["profile"].removeprefix("draw:")) for j in found if j["profile"].startswith("draw:"))
    return f"{numbers[0]}-{numbers[-1]}" if numbers else "none"


def shipped_defaults() -> dict[str, str]:
    """The default rule's options in this code (what a run given no --default ran with)."""
    from harnessx.search.explore import ExploreSettings

    shipped = ExploreSettings()
    return {k: str(getattr(shipped, k)) for k in ("design", "gate", "move_p", "tie_tasks")}


def parse_defaults(text: str) -> dict[str, str]:
    return dict(kv.split("=", 1) for kv in filter(None, text.split(",")))


def block(folder: Path, defaults: dict[str, str], reference: Path | None) -> dict:
    """A run of the report draws as the figures read it: its draws, the default's options, its budget,
    the rows borrowed from `reference` and its jobs."""
    found = jobs(folder)
    return {"draws": draws(found), "default": options(found[0], defaults),
            "max_rollouts": found[0]["settings"].get("max_rollouts"),
            "borrowed": fill_in(found, reference), "jobs": found}


def fill_in(report: list[dict], reference: Path | None) -> list[str]:
    """Fill each job's rows the run did not run from `reference`, an earlier run of the same jobs (rows
    a design change cannot move: the paper's protocol); the strategies borrowed."""
    if reference is None:
        return []
    earlier = {(j["env"], j["profile"], j["rho"], j["seed"]): j for j in jobs(reference)}
    borrowed: list[str] = []
    for job in report:
        other = earlier[(job["env"], job["profile"], job["rho"], job["seed"])]
        missing = [k for k in other["rows"] if k not in job["rows"]]
        job["rows"] = {**{k: other["rows"][k] for k in missing}, **job["rows"]}
        borrowed = missing
    return borrowed


def collect_variants(items: list[str], defaults: dict[str, str]) -> dict[str, dict]:
    """LABEL=FOLDER items as {label: {options, jobs}}, in the order given (the reference first)."""
    variants = {}
    for item in items:
        label, _, folder = item.partition("=")
        found = jobs(Path(folder))
        variants[label] = {"options": options(found[0], defaults), "jobs": found}
    return variants


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--report", type=Path, required=True, help="the report draws' run folder")
    parser.add_argument("--design", nargs="+", required=True, metavar="LABEL=FOLDER",
                        help="the design draws' run folders, the reference first")
    parser.add_argument("--reference", type=Path, default=None,
                        help="a run folder of the same report draws whose strategies the --report run did not run "
                             "(the paper's protocol, which no default option changes) fill in each job's rows")
    parser.add_argument("--budgeted", type=Path, default=None,
                        help="a run folder of the same report draws with the default given --max-rollouts (its "
                             "rounds from the budget), shown beside the report")
    parser.add_argument("--before", type=Path, default=None,
                        help="a run folder of the report draws at a budget with the default before its last change, "
                             "shown apart from the default's")
    parser.add_argument("--before-rounds", type=Path, default=None,
                        help="the same default before its last change on the report draws with --rounds (no budget)")
    parser.add_argument("--design-budget", nargs="+", default=[], metavar="LABEL=FOLDER",
                        help="design draws' run folders with the default at a --max-rollouts budget, the reference "
                             "first: designs tried for the budget target")
    here = ",".join(f"{k}={v}" for k, v in shipped_defaults().items())
    parser.add_argument("--defaults", default="",
                        help="the default rule's options in the code the --design runs used, e.g. "
                             "design=promote,move_p=0.3,gate=0")
    parser.add_argument("--report-defaults", default=here, help="the default rule's options in the code the --report "
                        "and --budgeted runs used (default: this code's)")
    for name, what in (("before", "--before and --before-rounds"), ("design-budget", "--design-budget")):
        parser.add_argument(f"--{name}-defaults", default=None,
                            help=f"the default rule's options in the code the {what} runs used (required with them: "
                                 "those runs were made on code whose defaults differ from this code's)")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("worlds.json"))
    args = parser.parse_args()
    for given, needs in (((args.before, args.before_rounds), "before_defaults"), ((args.design_budget,), "design_budget_defaults")):
        if any(given) and getattr(args, needs) is None:
            parser.error(f"--{needs.replace('_', '-')} is required with those runs (the options of the code that ran "
                         "them, e.g. design=halving,gate=4,move_p=0.5,tie_tasks=0)")
    variants = collect_variants(args.design, parse_defaults(args.defaults))
    report = block(args.report, parse_defaults(args.report_defaults), args.reference)
    data = {"report": {**report, "strategies": list(report["jobs"][0]["rows"])},
            "design": {"draws": draws(next(iter(variants.values()))["jobs"]), "variants": variants}}
    if args.budgeted is not None:  # the same draws with the default budget-driven (--max-rollouts)
        data["budgeted"] = block(args.budgeted, parse_defaults(args.report_defaults), args.reference)
    for key, folder in (("before", args.before), ("before_rounds", args.before_rounds)):
        if folder is not None:  # the default before its last change, on the same draws
            data[key] = block(folder, parse_defaults(args.before_defaults), args.reference)
    if args.design_budget:  # design draws with the default budget-driven: the designs tried for that target
        tried = collect_variants(args.design_budget, parse_defaults(args.design_budget_defaults))
        first = next(iter(tried.values()))["jobs"][0]
        data["design_budget"] = {"draws": draws(next(iter(tried.values()))["jobs"]),
                                 "max_rollouts": first["settings"]["max_rollouts"], "variants": tried}
    args.out.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{args.out}: report {len(report['jobs'])} jobs (draws {report['draws']}), design "
          + ", ".join(f"{k} {len(v['jobs'])} jobs ({v['options']})" for k, v in variants.items()))


if __name__ == "__main__":
    main()
