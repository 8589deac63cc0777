"""``evaluate.py --gauntlet SPEC``: an agent against the line-ups it never trained against.

The command's part of :mod:`card_envs.evaluation.gauntlet`: the table comes from
``--game``/``--players``/``--rule`` or, for a trained run (``greedy:RUN``, ``model:RUN``),
from its settings.json; ``--opponents`` adds line-ups (earlier trained agents, say). Every
argument is checked before the first game; then one titled table per line-up as it is
done, and a verdict line per agent at the end.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from card_envs.agents.policy_spec import PolicySpec
from card_envs.agents.runs import run_settings
from card_envs.agents.specs import check_spec
from card_envs.cli.args import check_output_folder, fail, game_rules
from card_envs.core.table import Table


def _saved_table(parser: argparse.ArgumentParser, specs: list[str]) -> dict[str, Any] | None:
    """The settings.json of the first trained run among ``specs`` (None if there is none)."""
    for spec in specs:
        path = PolicySpec.parse(spec).path
        if path is not None:
            try:
                saved = run_settings(path)
            except ValueError as error:
                fail(parser, f"--gauntlet {spec!r}: {error}")
            if saved:
                return saved
    return None


def _checked(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Table:
    """Fill in the table from a run's settings, check every argument; return the table."""
    for flag, given in (("--sample", args.sample), ("--pool-copies", args.pool_copies)):
        if given:
            fail(parser, f"{flag} does not go with --gauntlet (name a sampling agent model:PATH)")
    saved = _saved_table(parser, args.gauntlet)
    if saved:
        args.game = args.game or saved["game"]
        args.players = args.players or saved["num_players"]
        args.rule = args.rule or list(saved["rules"].items())
    args.game = args.game or "uno"
    args.players = args.players or 4
    table = Table.of(args.game, args.players, **game_rules(parser, args))
    others = table.num_players - 1
    try:
        for spec in args.gauntlet:
            check_spec(spec, table, what="--gauntlet")
        for seats in args.opponents or []:
            if len(seats) not in (1, others):
                fail(parser, f"--opponents {','.join(seats)}: needs 1 spec or {others} (one per other seat)")
            for spec in seats:
                check_spec(spec, table, what="--opponents")
    except ValueError as error:
        fail(parser, str(error))
    check_output_folder(parser, args.out, "--out")
    check_output_folder(parser, args.record, "--record")
    return table


def run_gauntlet(
    parser: argparse.ArgumentParser, args: argparse.Namespace, progress: Callable[[int, int], None]
) -> None:
    """Play each ``--gauntlet`` agent through the gauntlet; print, and write ``--out``."""
    from card_envs.evaluation.gauntlet import gauntlet
    from card_envs.evaluation.report import write_report

    table = _checked(parser, args)
    extra = [seats[0] if len(seats) == 1 else seats for seats in args.opponents or []]
    outcomes = []
    for number, agent in enumerate(args.gauntlet, start=1):
        record_dir: Path | None = args.record
        if record_dir is not None and len(args.gauntlet) > 1:
            record_dir = record_dir / f"agent-{number}"
        outcome = gauntlet(
            table,
            agent,
            games=args.games,
            seed=args.seed,
            workers=args.workers,
            extra=extra,
            progress=progress,
            record_dir=record_dir,
            on_result=lambda done: print(done.result.table(), end="\n\n", flush=True),
            duplicate=args.duplicate,
        )
        outcomes.append(outcome)
        if record_dir is not None:
            print(f"recorded the games in {record_dir}/lineup-1 and up", end="\n\n")
    verdicts = [outcome.verdict for outcome in outcomes]
    print("\n".join(verdicts))
    if args.out:
        results = [result for outcome in outcomes for result in outcome.tournaments()]
        for path in write_report(results, args.out, summary=verdicts):
            print(f"wrote {path}")
