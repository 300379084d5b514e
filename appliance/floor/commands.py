"""``appliance floor ...``: migrate, serve, enroll, ship; and the shipping options of ``run`` and
``simulate-table``."""

from __future__ import annotations

import argparse
import datetime as dt
import json
from pathlib import Path

from ..arguments import existing_folder, new_path, not_negative, port


def add_shipping_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--floor", help="the floor service's URL: ship this table's records there")
    parser.add_argument("--floor-credentials", help="this table's credentials file (appliance floor enroll)")


def floor_url(args, configured=None) -> str | None:
    """The floor this table ships to: the command line's --floor, else devices.toml's [floor], else none."""
    return args.floor or (configured.url if configured else None)


def shipping(args, audit_dir: Path, key_file: Path, configured=None, make_key: bool = True):
    """The table's audit key and a started background shipper (or the key alone and None without a floor).
    The command line's --floor wins over devices.toml's [floor]. Without a floor a missing key is made only
    when ``make_key``; with one, the key file is written from the floor's credentials (docs/floor.md)."""
    from ..audit.keys import audit_key
    from .enroll import Credentials, table_key
    from .shipper import Shipper

    url = floor_url(args, configured)
    creds = args.floor_credentials or (configured.credentials if configured else None)
    if bool(url) != bool(creds):
        raise ValueError("--floor and --floor-credentials go together")
    if not url:
        return audit_key(key_file, audit_dir, make=make_key), None
    credentials = Credentials.read(creds)
    key = table_key(key_file, credentials, audit_dir)
    return key, Shipper(audit_dir, url, credentials)


def cmd_migrate(args) -> int:
    from .migrate import migrate

    print(json.dumps(migrate(args.db).to_json()), flush=True)
    return 0


def cmd_enroll(args) -> int:
    from .enroll import enroll

    credentials = enroll(args.db, args.table, Path(args.out), Path(args.audit_key) if args.audit_key else None)
    print(json.dumps({"table": credentials.table, "credentials": args.out}), flush=True)
    return 0


def cmd_ship(args) -> int:
    import sys

    from .enroll import Credentials
    from .shipper import FloorRefused, FloorUnreachable, Shipper, ship_until_done

    shipper = Shipper(args.audit, args.floor, Credentials.read(args.floor_credentials))
    try:
        shipped = ship_until_done(shipper, args.wait)
    except (FloorRefused, FloorUnreachable) as err:
        print(f"appliance floor ship: {err}", file=sys.stderr)
        return 1
    finally:
        shipper.client.close()
    print(json.dumps(shipped.to_json()), flush=True)
    return 0 if shipped.pending == 0 else 1


def cmd_prune(args) -> int:
    from .retention import prune

    print(json.dumps(prune(args.db, args.keep_days).to_json()), flush=True)
    return 0


def cmd_serve(args) -> int:
    import waitress

    from .database import Database, connect
    from .server import create_floor_app

    db = Database(args.db)
    with connect(args.db) as conn:  # no database or no schema: say so now, not at the first request
        if conn.execute("SELECT to_regclass('floor_tables')").fetchone()[0] is None:
            raise ValueError("the floor database has no schema yet: run appliance floor migrate first")
    starts = dt.time.fromisoformat(args.day_starts_at)
    server = waitress.create_server(create_floor_app(db, starts), host=args.host, port=args.port, threads=16)
    print(json.dumps({"floor": f"http://{args.host}:{server.effective_port}/"}), flush=True)
    server.run()
    return 0


def add_floor_commands(sub) -> None:
    floor = sub.add_parser("floor", help="the floor: every table's records in PostgreSQL, the pit view, reports")
    commands = floor.add_subparsers(dest="floor_command", required=True)
    db_help = "the database: a libpq DSN (postgresql://...); empty: libpq's PG* environment variables"

    p = commands.add_parser("migrate", help="create or upgrade the floor's schema (safe to run again)")
    p.add_argument("--db", default="", help=db_help)
    p.set_defaults(func=cmd_migrate)

    p = commands.add_parser("serve", help="the floor service: ingest API, pit view, JSON API and reports")
    p.add_argument("--db", default="", help=db_help)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=port, default=8090, help="the floor service's port (0: any free one)")
    p.add_argument("--day-starts-at", default="06:00", help="the start of the gaming day (and of the day shift)")
    p.set_defaults(func=cmd_serve)

    p = commands.add_parser("enroll", help="register a table; write the credentials file it ships with (mode 600)")
    p.add_argument("table", metavar="TABLE_ID")
    p.add_argument("--db", default="", help=db_help)
    p.add_argument("--out", type=new_path, required=True, help="the credentials file to write (never overwritten)")
    p.add_argument("--audit-key", help="escrow this existing audit key (a table that already has a log); "
                                       "default: a new key, written to the table's key file on first use")
    p.set_defaults(func=cmd_enroll)

    p = commands.add_parser("prune", help="delete records of gaming days older than the retention period")
    p.add_argument("--db", default="", help=db_help)
    p.add_argument("--keep-days", type=int, required=True, help="keep this many days of records (at least 1)")
    p.set_defaults(func=cmd_prune)

    p = commands.add_parser("ship", help="ship what a log holds that the floor does not; exit 0 when all is acknowledged")
    p.add_argument("--audit", type=existing_folder, required=True, help="the table's audit log folder")
    p.add_argument("--floor", required=True, help="the floor service's URL")
    p.add_argument("--floor-credentials", required=True)
    p.add_argument("--wait", type=not_negative, default=30.0, help="keep trying an unreachable floor this many seconds")
    p.set_defaults(func=cmd_ship)
