-- A card the camera could not read in the zones where the house dealer sets the banker's hand
-- (banker.front, banker.back: the BankerSetHeld and BankerSet records' reads) is an unreadable card
-- like one in the banker's or a seat's zone: counted in the round's figures. Each reading counts (a
-- setting held and then reset was laid, and read, twice), as the banker's seven are counted both
-- when dealt and when set; so the cards the unreadable-card rate is taken over (cards, new) are the
-- seven of each hand dealt and each card read in the set zones.

DROP VIEW floor_round_figures;
CREATE VIEW floor_round_figures AS
SELECT table_id, round, gaming_day, dealer, began, s IS NOT NULL AS settled, misdeal, voided, corrections, unreadable,
    coalesce((SELECT sum((x ->> 'wager')::numeric) FROM jsonb_array_elements(s -> 'seats') x), 0) AS wagers,
    coalesce((s -> 'totals' ->> 'commission')::numeric, 0) AS commission,
    coalesce((s -> 'totals' ->> 'collection')::numeric, 0) AS collection,
    coalesce((s -> 'totals' ->> 'banker_net')::numeric, 0) AS banker_net,
    coalesce((s -> 'totals' ->> 'house_net')::numeric, 0) AS house_net,
    coalesce((SELECT count(*) FROM jsonb_array_elements(s -> 'seats') x WHERE x ->> 'result' = 'foul'), 0) AS fouls,
    coalesce(jsonb_array_length(s -> 'seats'), 0) AS seats,
    (coalesce(jsonb_array_length(s -> 'seats'), 0) + 1) * 7 + set_cards AS cards
FROM (
    SELECT table_id, round,
        coalesce((array_agg(gaming_day ORDER BY seq DESC) FILTER (WHERE event = 'RoundSettled'))[1],
                 min(gaming_day)) AS gaming_day,
        coalesce(min(who) FILTER (WHERE event = 'RoundOpened'), '?') AS dealer,
        coalesce(min(ts) FILTER (WHERE event = 'RoundOpened'), min(ts)) AS began,
        (array_agg(data -> 'settlement' ORDER BY seq DESC) FILTER (WHERE event = 'RoundSettled'))[1] AS s,
        coalesce(bool_or(event = 'RoundVoided' AND data ->> 'reason' LIKE 'misdeal:%'), false) AS misdeal,
        coalesce(bool_or(event = 'RoundVoided' AND data ->> 'reason' NOT LIKE 'misdeal:%'), false) AS voided,
        count(*) FILTER (WHERE event = 'ReadCorrected') AS corrections,
        coalesce(sum(jsonb_array_length(jsonb_path_query_array(data, '$.read[*] ? (@.card == null)')))
                 FILTER (WHERE event IN ('BankerCards', 'BankerSetHeld', 'BankerSet', 'SeatCards')), 0)::bigint
            AS unreadable,
        coalesce(sum(jsonb_array_length(data -> 'read'))
                 FILTER (WHERE event IN ('BankerSetHeld', 'BankerSet') AND jsonb_typeof(data -> 'read') = 'array'), 0)
            AS set_cards
    FROM (SELECT table_id, round, event, seq, ts, who, gaming_day, line::jsonb -> 'data' AS data FROM floor_records
          WHERE round IS NOT NULL
            AND event IN ('RoundOpened', 'RoundSettled', 'RoundVoided', 'ReadCorrected', 'BankerCards',
                          'BankerSetHeld', 'BankerSet', 'SeatCards')
         ) round_records
    GROUP BY table_id, round
) per_round;

-- The rounds already kept, counted again from their records; only upwards, so that a round some of
-- whose records were pruned keeps the figures it had.
ALTER TABLE floor_rounds ADD COLUMN cards bigint;
UPDATE floor_rounds SET cards = (seats + 1) * 7;
UPDATE floor_rounds r SET unreadable = greatest(r.unreadable, f.unreadable), cards = greatest(r.cards, f.cards)
FROM floor_round_figures f
WHERE f.table_id = r.table_id AND f.round = r.round;
ALTER TABLE floor_rounds ALTER COLUMN cards SET NOT NULL;
