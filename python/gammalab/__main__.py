"""python -m gammalab export SWEEP [--parquet DIR] [--tensorboard DIR] [--mlflow URL]: a sweep's runs and curves out of a
coordinator (gammalab/export.py), read over its HTTP API with a user token.

python -m gammalab convert (--parquet DIR | --tensorboard DIR --runs FILE.csv | --mlflow URL --experiment NAME)
--out FILE.jsonl: runs trained elsewhere as the JSON lines `gammalab import` reads (gammalab/convert.py)."""
from __future__ import annotations

import argparse
import sys

from gammalab.client import ApiError, Client
from gammalab.convert import from_mlflow, from_parquet, from_tensorboard, parse_field_map, parse_metric_map
from gammalab.export import to_mlflow, to_parquet, to_tensorboard
from gammalab.mlflow_rest import MlflowError


def convert(args) -> int:
    if sum(bool(x) for x in (args.parquet, args.tensorboard, args.mlflow)) != 1:
        print("python -m gammalab convert: give one of --parquet DIR, --tensorboard DIR, --mlflow URL", file=sys.stderr)
        return 2
    if args.mlflow and not args.experiment:
        print("python -m gammalab convert: --mlflow needs --experiment NAME", file=sys.stderr)
        return 2
    if args.tensorboard and not args.runs:
        print("python -m gammalab convert: --tensorboard needs --runs FILE.csv (run, group, seed, params[, tokens])",
              file=sys.stderr)
        return 2
    try:
        metrics = parse_metric_map(args.metric)
        with open(args.out, "w", encoding="utf-8") as out:
            if args.parquet:
                n = from_parquet(args.parquet, out)
            elif args.tensorboard:
                n = from_tensorboard(args.tensorboard, args.runs, metrics, out)
            else:
                n = from_mlflow(args.mlflow, args.experiment, metrics, parse_field_map(args.field), out)
    except (OSError, ValueError, MlflowError) as e:
        print(f"python -m gammalab convert: {e}", file=sys.stderr)
        return 1
    print(f"{args.out}: {n['runs']} runs, {n['points']} points; next: gammalab import {args.out}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammalab")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write a sweep's runs and curves as Parquet and TensorBoard files")
    export.add_argument("sweep", help="sweep id or name")
    export.add_argument("--server", help="the coordinator's HTTP address (default: $GAMMALAB_HTTP or 127.0.0.1:8080)")
    export.add_argument("--token-file", help="a user token (default: $GAMMALAB_TOKEN)")
    export.add_argument("--parquet", help="folder for runs.parquet and points.parquet")
    export.add_argument("--tensorboard", help="folder for one TensorBoard run per job")
    export.add_argument("--mlflow", help="an MLflow tracking server's address: one MLflow run per job")
    export.add_argument("--experiment", help="with --mlflow: the experiment (default: the sweep's name)")
    conv = commands.add_parser("convert", help="runs trained elsewhere as JSON lines for `gammalab import`")
    conv.add_argument("--parquet", help="a folder of runs.parquet and points.parquet (as export writes them)")
    conv.add_argument("--tensorboard", help="a folder of TensorBoard runs (each folder with event files is one)")
    conv.add_argument("--runs", help="with --tensorboard: a CSV of run, group, seed, params[, tokens]")
    conv.add_argument("--mlflow", help="an MLflow tracking server's address")
    conv.add_argument("--experiment", help="with --mlflow: the experiment's name")
    conv.add_argument("--field", action="append",
                      help="with --mlflow: WHAT=KEY, the tag or param holding a run's group, seed, params or tokens")
    conv.add_argument("--metric", action="append", help="NAME=TAG: keep a TensorBoard tag or MLflow key as NAME")
    conv.add_argument("--out", required=True, help="the JSON lines file to write")
    args = parser.parse_args(argv)
    if args.command == "convert":
        return convert(args)
    if not args.parquet and not args.tensorboard and not args.mlflow:
        parser.error("export: give --parquet DIR, --tensorboard DIR, --mlflow URL, or several")
    client = Client(args.server, token_file=args.token_file)
    try:
        if args.parquet:
            n = to_parquet(client, args.sweep, args.parquet)
            print(f"{args.parquet}: {n['runs']} runs, {n['points']} points")
        if args.tensorboard:
            n = to_tensorboard(client, args.sweep, args.tensorboard)
            print(f"{args.tensorboard}: {n['runs']} runs, {n['scalars']} scalars")
        if args.mlflow:
            n = to_mlflow(client, args.sweep, args.mlflow, args.experiment or "")
            print(f"{args.mlflow} experiment {n['experiment']}: {n['runs']} runs, {n['metrics']} metric points")
    except (ApiError, MlflowError) as e:
        print(f"python -m gammalab export: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
