"""The signed form every file of the audit log shares (its records, head, seals and checkpoint): a record's
canonical bytes and its HMAC under the log's key, and the error every audit failure is."""

from __future__ import annotations

import hashlib
import hmac
import json


class AuditError(ValueError):
    """An audit log that cannot be opened or written as the chain requires."""


def canonical(record: dict) -> bytes:
    return json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def sign(key: bytes, record: dict) -> str:
    body = {k: v for k, v in record.items() if k != "hmac"}
    return hmac.new(key, canonical(body), hashlib.sha256).hexdigest()


def signed_by(key: bytes, record: dict) -> bool:
    return hmac.compare_digest(str(record.get("hmac", "")), sign(key, record))
