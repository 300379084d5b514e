"""The floor: every table's signed audit records in one PostgreSQL database, the pit view and the
accounting reports. It reads the audit log's format (``audit/log.py``), never the round engine."""
