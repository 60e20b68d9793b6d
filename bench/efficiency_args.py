"""The arguments of bench/search_efficiency.py: the strategies it knows, its options, their checks,
and the settings a resumed job log must share."""

from __future__ import annotations

import argparse

from harnessx.errors import InputError
from harnessx.search.explore import ExploreSettings

from fresh_incumbent import FreshIncumbent
from unseen_move import UnseenMove

STRATEGIES = ("paper", "default", "prior", "fresh", "unseen", "paired", "gepa", "oracle", "composite")
BARE = ("paper", "default", "gepa")  # a bare invocation: the paper's protocol, the shipped default and GEPA
DESIGNS = {"fresh": FreshIncumbent, "unseen": UnseenMove}  # bench-only designs of the default rule
CANDIDATES = ("default", "prior", *DESIGNS)  # the rules whose targets the bench judges at its end (all take --default)


def parse(argv: list[str] | None = None) -> tuple[argparse.ArgumentParser, argparse.Namespace]:
    """The bench's arguments, checked here (a bad combination is one argparse line, not a worker's traceback)."""
    parser = argparse.ArgumentParser(description="Search efficiency on the simulator: the paper's protocol, GEPA and the shipped default side by side.")
    parser.add_argument("--envs", default="retail,terminal")
    parser.add_argument("--worlds", default="baseline,harmful",
                        help="named worlds and draws of the world distribution (harnessx/sim/worlds.py), e.g. "
                             "baseline,harmful,draw:1000-1019; choose a design on some draws, report it on others")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=0,
                        help="search seeds first-seed .. first-seed + seeds - 1 (tune a rule on other seeds than you report)")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--proposals", type=int, default=3)
    parser.add_argument("--max-rollouts", type=int, default=None,
                        help="the default's rollout budget: its rounds come from it (--rounds then applies to the "
                             "other strategies only), e.g. 973 = 0.4 x the paper protocol's 2,432")
    parser.add_argument("--epochs", type=int, default=1,
                        help="the searches' seeds per task (every strategy's, GEPA's too): --epochs of harnessx search")
    parser.add_argument("--gt-epochs", type=int, default=2)
    parser.add_argument("--retail-tasks", type=int, default=128)
    parser.add_argument("--terminal-tasks", type=int, default=20)
    parser.add_argument("--heldout-tasks", type=int, default=64)
    parser.add_argument("--terminal-heldout-tasks", type=int, default=12,
                        help="terminal's held-out tasks (the full split has 60; bench/terminal_power.py)")
    parser.add_argument("--rho", default="0.5,1",
                        help="pairing of the searches' rollouts, comma-separated: 1 = common random numbers "
                             "(no noise between harnesses), < 1 = partial (harnessx/sim/pairing.py)")
    parser.add_argument("--strategies", default=",".join(BARE),
                        help="a subset of " + ",".join(STRATEGIES) + " (default: " + ",".join(BARE) + "; oracle and "
                             "composite, the bounds, only when asked for)")
    parser.add_argument("--default", default="", help="options of the default rule, e.g. design=halving,move_p=0.3; gate=4: screen/4 times "
                             "--proposals looks a round, each first on a 4-task minibatch (harnessx/search/explore.py)")
    parser.add_argument("--reach", action="store_true",
                        help="also measure the best single edit and pair on ground truth and when each search first "
                             "proposes them (bench/proposer_reach.py; costs the single edits' ground truth)")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", default="runs/bench-efficiency",
                        help="jobs.jsonl (a line per finished job), results.json and frontier.png go here")
    parser.add_argument("--resume", action="store_true",
                        help="reuse the finished jobs of --out's jobs.jsonl (run with the same settings)")
    args = parser.parse_args(argv)
    text = args.default  # the default rule's options, as name=number pairs
    try:
        options = {k: (v if k in ("design", "confirm") else float(v)) for k, v in
                   (kv.split("=", 1) for kv in filter(None, text.split(",")))}
    except ValueError:
        parser.error(f"--default {text!r}: expected name=number pairs, e.g. screen=12,move_p=0.3")
    unknown = set(options) - set(ExploreSettings.__dataclass_fields__)
    if unknown:
        parser.error(f"--default: unknown option {', '.join(sorted(unknown))}")
    try:  # here, not in a worker (whose error would not cross the process boundary)
        ExploreSettings(**options)
    except InputError as exc:
        parser.error(f"--default: {exc}")
    args.default = options
    unknown = set(args.strategies.split(",")) - set(STRATEGIES)
    if unknown:
        parser.error(f"--strategies: unknown {', '.join(sorted(unknown))} (expected a subset of {', '.join(STRATEGIES)})")
    args.strategies = [s for s in STRATEGIES if s in args.strategies.split(",")]
    check_designs(parser, args)
    if "gepa" in args.strategies and "default" not in args.strategies:
        parser.error("--strategies: gepa needs default (its budget is the default's rollouts of the same job)")
    args.tasks = {"retail": args.retail_tasks, "terminal": args.terminal_tasks}
    args.heldout = {"retail": args.heldout_tasks, "terminal": min(args.heldout_tasks, args.terminal_heldout_tasks)}
    for env in args.envs.split(","):
        args.tasks.setdefault(env, args.retail_tasks)
        args.heldout.setdefault(env, args.heldout_tasks)
    return parser, args


def check_designs(parser: argparse.ArgumentParser, args) -> None:
    """Build each bench-only design asked for with --default's options here, so a combination it
    refuses is one argparse line, not a worker's traceback."""
    for name in (d for d in DESIGNS if d in args.strategies):
        try:
            DESIGNS[name](ExploreSettings(**args.default))
        except (InputError, ValueError) as exc:
            parser.error(f"--strategies {name} with --default {args.default}: {exc}")


def settings(args) -> dict:
    """The arguments that shape a job's figures (a resumed log must have been run with the same); the
    terminal held-out size and the epochs only when not their defaults, so logs written before them resume."""
    named = ("rounds", "proposals", "gt_epochs", "retail_tasks", "terminal_tasks", "heldout_tasks", "strategies", "default")
    extra = ("terminal_heldout_tasks",) if args.terminal_heldout_tasks != 12 else ()
    extra += ("max_rollouts",) if args.max_rollouts is not None else ()
    extra += ("epochs",) if args.epochs != 1 else ()
    return {k: getattr(args, k) for k in named + extra}
