"""What the appliance records: the names of its events, one registry for the audit log, the live
dashboard stream, the index, the floor and the pages (:mod:`.events`)."""
