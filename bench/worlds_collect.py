"""Collect the world-distribution runs of bench/search_efficiency.py into bench/worlds.json, the
file docs/figures.py renders the design and report tables from (the runs take an hour; the figures
are recomputed from their jobs, so `docs/figures.py --check` compares them like any other).

    python bench/worlds_collect.py --report runs/report --design A=runs/design-a B=runs/design-b ... \
        [--reference runs/earlier-report] [--budgeted runs/report-at-a-budget] \
        [--design-budget A=runs/design-a-at-a-budget B=...]

Each run folder's jobs.jsonl is read as written (one line per finished job, with the settings that
shaped it); a design variant's label is the name the table gives it, its options are read from the
jobs' settings. The first design variant is the one the others are compared with per world.
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


def shipped_defaults() -> dict[str, object]:
    """The default rule's options in this code (what a run given no --default ran with)."""
    from harnessx.search.explore import ExploreSettings

    shipped = ExploreSettings()
    return {"design": shipped.design, "gate": shipped.gate, "move_p": shipped.move_p}


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
    parser.add_argument("--budgeted-defaults", default=",".join(f"{k}={v}" for k, v in shipped_defaults().items()),
                        help="the default rule's options in the code the --budgeted run used (default: this code's)")
    parser.add_argument("--candidate", type=Path, default=None,
                        help="a run folder of the report draws at a budget with a design chosen on the design draws "
                             "and not (yet) the default (its --default options), shown apart from the default's")
    parser.add_argument("--candidate-rounds", type=Path, default=None,
                        help="the same candidate on the report draws with --rounds (no budget), beside the default's")
    parser.add_argument("--design-budget", nargs="+", default=[], metavar="LABEL=FOLDER",
                        help="design draws' run folders with the default at a --max-rollouts budget (this code's "
                             "defaults), the reference first: designs tried for the budget target")
    parser.add_argument("--defaults", default="",
                        help="the default rule's options in the code the runs used, e.g. design=promote,move_p=0.3,gate=0")
    parser.add_argument("--out", type=Path, default=Path(__file__).with_name("worlds.json"))
    args = parser.parse_args()
    defaults = dict(kv.split("=", 1) for kv in filter(None, args.defaults.split(",")))
    report = jobs(args.report)
    borrowed = fill_in(report, args.reference)
    variants = collect_variants(args.design, defaults)
    data = {"report": {"draws": draws(report), "default": options(report[0], defaults),
                       "strategies": list(report[0]["rows"]), "borrowed": borrowed, "jobs": report},
            "design": {"draws": draws(next(iter(variants.values()))["jobs"]), "variants": variants}}
    if args.budgeted is not None:  # the same draws with the default budget-driven (--max-rollouts)
        found = jobs(args.budgeted)
        shipped = dict(kv.split("=", 1) for kv in filter(None, args.budgeted_defaults.split(",")))
        data["budgeted"] = {"draws": draws(found), "default": options(found[0], shipped),
                            "max_rollouts": found[0]["settings"]["max_rollouts"],
                            "borrowed": fill_in(found, args.reference), "jobs": found}
    for key, folder in (("candidate", args.candidate), ("candidate_rounds", args.candidate_rounds)):
        if folder is not None:  # a design chosen on the design draws, reported before it is adopted
            found = jobs(folder)
            data[key] = {"draws": draws(found), "default": options(found[0], shipped_defaults()),
                         "max_rollouts": found[0]["settings"].get("max_rollouts"),
                         "borrowed": fill_in(found, args.reference), "jobs": found}
    if args.design_budget:  # design draws with the default budget-driven: the designs tried for that target
        tried = collect_variants(args.design_budget, {k: str(v) for k, v in shipped_defaults().items()})
        first = next(iter(tried.values()))["jobs"][0]
        data["design_budget"] = {"draws": draws(next(iter(tried.values()))["jobs"]),
                                 "max_rollouts": first["settings"]["max_rollouts"], "variants": tried}
    args.out.write_text(json.dumps(data, indent=None, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{args.out}: report {len(report)} jobs (draws {data['report']['draws']}), design "
          + ", ".join(f"{k} {len(v['jobs'])} jobs ({v['options']})" for k, v in variants.items()))


if __name__ == "__main__":
    main()
