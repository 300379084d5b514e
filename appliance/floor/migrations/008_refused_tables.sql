-- A table whose records are refused is not online: the pit shows it as refused from the first refusal
-- until the floor takes a record of it again. Any request with the table's token marks it seen (a
-- hello, or a batch refused whole), so a table that only ever shipped forged records showed online.
-- No rows are set here: a table still refused is refused again at its shipper's next try, seconds on.

ALTER TABLE floor_tables ADD COLUMN refused_since timestamptz;
