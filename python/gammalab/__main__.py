"""python -m gammalab export SWEEP [--parquet DIR] [--tensorboard DIR]: a sweep's runs and curves out of a
coordinator (gammalab/export.py), read over its HTTP API with a user token."""
from __future__ import annotations

import argparse
import sys

from gammalab.client import ApiError, Client
from gammalab.export import to_parquet, to_tensorboard


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gammalab")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="write a sweep's runs and curves as Parquet and TensorBoard files")
    export.add_argument("sweep", help="sweep id or name")
    export.add_argument("--server", help="the coordinator's HTTP address (default: $GAMMALAB_HTTP or 127.0.0.1:8080)")
    export.add_argument("--token-file", help="a user token (default: $GAMMALAB_TOKEN)")
    export.add_argument("--parquet", help="folder for runs.parquet and points.parquet")
    export.add_argument("--tensorboard", help="folder for one TensorBoard run per job")
    args = parser.parse_args(argv)
    if not args.parquet and not args.tensorboard:
        parser.error("export: give --parquet DIR, --tensorboard DIR or both")
    client = Client(args.server, token_file=args.token_file)
    try:
        if args.parquet:
            n = to_parquet(client, args.sweep, args.parquet)
            print(f"{args.parquet}: {n['runs']} runs, {n['points']} points")
        if args.tensorboard:
            n = to_tensorboard(client, args.sweep, args.tensorboard)
            print(f"{args.tensorboard}: {n['runs']} runs, {n['scalars']} scalars")
    except ApiError as e:
        print(f"python -m gammalab export: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
