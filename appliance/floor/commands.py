"""``appliance floor ...``: migrate, serve, enroll, ship; and the shipping options of ``run`` and
``simulate-table``, with the audit key they ship under."""

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


def may_make_key(args, key_file: Path, configured=None) -> bool:
    """Whether a missing audit key may be made: not where it is named (a floor's credentials still write
    theirs there). A named key that is missing, or a key file that holds no key, is refused here, before the log's
    folder is made or locked."""
    from ..audit.keys import named, require_key
    from ..audit.log import load_key

    if key_file.exists():
        load_key(key_file)
    if not named(args.key_file):
        return True
    if not floor_url(args, configured):
        require_key(key_file)
    return False


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
    import signal
    import sys

    from ..web.front import TlsFiles
    from .database import Database, connect
    from .floor_serving import check_floor_bind, serve_floor

    if bool(args.tls_cert) != bool(args.tls_key):
        raise ValueError("--tls-cert and --tls-key go together")
    tls = TlsFiles(Path(args.tls_cert).absolute(), Path(args.tls_key).absolute()) if args.tls_cert else None
    check_floor_bind(args.host, tls is not None, args.tls_proxy)  # before anything starts
    if tls is not None:
        tls.context()  # a certificate or key that cannot be used: said now, in one line
    starts = dt.time.fromisoformat(args.day_starts_at)
    db = Database(args.db)
    with connect(args.db) as conn:  # no database or no schema: say so now, not at the first request
        if conn.execute("SELECT to_regclass('floor_users')").fetchone()[0] is None:
            raise ValueError("the floor database's schema is missing or old: run appliance floor migrate first")
    service = serve_floor(db, starts, args.host, args.port, tuple(args.name), tls, args.tls_proxy)
    signal.signal(signal.SIGTERM, lambda *_: service.ask_to_stop())
    print(json.dumps({"floor": service.url + "/", "tls": tls is not None, "tls_proxy": args.tls_proxy,
                      "names": sorted(service.site.hostnames()), "door_pid": service.door.pid}), flush=True)
    try:
        stopped = service.wait()
    except KeyboardInterrupt:
        stopped = None
    finally:
        service.stop()
    if stopped:  # the door's process or waitress: the floor does not serve half of itself; systemd starts it again
        print(f"appliance floor serve: {stopped}; the floor stopped", file=sys.stderr)
        return 1
    return 0


def read_password(prompt: str) -> str:
    """A password from the terminal (asked twice), else the first line of stdin."""
    import getpass
    import sys

    if sys.stdin.isatty():
        password = getpass.getpass(prompt)
        if getpass.getpass("The same password again: ") != password:
            raise ValueError("the two passwords differ; nothing was changed")
        return password
    return sys.stdin.readline().rstrip("\r\n")


def cmd_user_add(args) -> int:
    from .users import add_user

    add_user(args.db, args.name, args.role, read_password(f"Password for {args.name}: "), args.replace)
    print(json.dumps({"user": args.name, "role": args.role}), flush=True)
    return 0


def cmd_user_remove(args) -> int:
    from .users import UserError, remove_user

    if not remove_user(args.db, args.name):
        raise UserError(f"no user {args.name!r}")
    print(json.dumps({"removed": args.name}), flush=True)
    return 0


def cmd_user_list(args) -> int:
    from .users import list_users

    print(json.dumps(list_users(args.db)), flush=True)
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
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="a name or address the pit's browsers and the tables reach the floor by (repeatable); "
                        "requests naming anything else are refused (loopback's names are always taken)")
    p.add_argument("--tls-cert", help="PEM certificate (appliance tls selfsigned makes one); off loopback, "
                                      "TLS or --tls-proxy is required")
    p.add_argument("--tls-key", help="PEM private key of --tls-cert")
    p.add_argument("--tls-proxy", metavar="ADDRESS", help="plain HTTP behind a TLS-terminating proxy connecting "
                   "from ADDRESS (its X-Forwarded-For is taken from there only; browsers see https)")
    p.set_defaults(func=cmd_serve)

    user = commands.add_parser("user", help="who may log in to the pit view and reports, and their role")
    users = user.add_subparsers(dest="user_command", required=True)
    p = users.add_parser("add", help="add a user; the password is asked (or read from stdin's first line)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--role", required=True, choices=("pit", "accounting", "surveillance"),
                   help="pit: tables, alerts, figures; accounting: figures, reports; surveillance: tables, "
                        "alerts, recall of cards and bets")
    p.add_argument("--db", default="", help=db_help)
    p.add_argument("--replace", action="store_true", help="set an existing user's role and password anew")
    p.set_defaults(func=cmd_user_add)
    p = users.add_parser("remove", help="remove a user (their sessions end at once)")
    p.add_argument("name", metavar="NAME")
    p.add_argument("--db", default="", help=db_help)
    p.set_defaults(func=cmd_user_remove)
    p = users.add_parser("list", help="the users and their roles (JSON)")
    p.add_argument("--db", default="", help=db_help)
    p.set_defaults(func=cmd_user_list)

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
