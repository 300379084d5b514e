-- A record is booked to the gaming day it was signed with (its line's own gaming_day, computed at the
-- table by the house's rule), never to the day the shipper sent beside it, which anyone holding the
-- table's token could choose. Records booked before by the day sent are booked again, and the figures
-- of their rounds follow.

CREATE TEMP TABLE rebooked ON COMMIT DROP AS
SELECT DISTINCT table_id, round FROM floor_records
WHERE round IS NOT NULL AND line::jsonb ? 'gaming_day' AND gaming_day <> (line::jsonb ->> 'gaming_day')::date;

UPDATE floor_records SET gaming_day = (line::jsonb ->> 'gaming_day')::date
WHERE line::jsonb ? 'gaming_day' AND gaming_day <> (line::jsonb ->> 'gaming_day')::date;

UPDATE floor_rounds r SET gaming_day = f.gaming_day
FROM floor_round_figures f JOIN rebooked b USING (table_id, round)
WHERE r.table_id = f.table_id AND r.round = f.round;
