"""What a log folder holds, by name: the day files, the head, and beside them the evidence that outlives a
cut log (the shift seals and the verification checkpoint), read by the log, its seals, its checkpoint and
the start-up's look for a longer log alike."""

SUFFIX = ".jsonl"  # a day file: <gaming day>.jsonl
HEAD = "HEAD.json"  # the last record's seq and hash, signed
SEALS = "seals"  # the shift seals, one signed file each (:mod:`.seal`)
CHECKPOINT = "VERIFIED.json"  # the last record verified and each day file as it was then (:mod:`.checkpoint`)
