"""What the appliance records: the names of its events, one registry for the audit log, the live
dashboard stream, the index, the floor and the pages (:mod:`.events`); a round as its records tell it,
one typed state and the one fold of a record into it (:mod:`.round_state`); and records read as rounds,
with a round's settlement derived from its state (:mod:`.fold`)."""
