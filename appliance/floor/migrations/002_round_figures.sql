-- Each round's figures, computed in SQL from its shipped records (the view), and kept per round in
-- floor_rounds as records arrive, so that the pit's figures and the day's report read one row per
-- round instead of every record of the day. The last settlement of a round counts (a correction
-- settles again); a round belongs to the gaming day of that settlement (else of its first record).

CREATE VIEW floor_round_figures AS
SELECT table_id, round, gaming_day, dealer, began, s IS NOT NULL AS settled, misdeal, voided, corrections, unreadable,
    coalesce((SELECT sum((x ->> 'wager')::numeric) FROM jsonb_array_elements(s -> 'seats') x), 0) AS wagers,
    coalesce((s -> 'totals' ->> 'commission')::numeric, 0) AS commission,
    coalesce((s -> 'totals' ->> 'collection')::numeric, 0) AS collection,
    coalesce((s -> 'totals' ->> 'banker_net')::numeric, 0) AS banker_net,
    coalesce((s -> 'totals' ->> 'house_net')::numeric, 0) AS house_net,
    coalesce((SELECT count(*) FROM jsonb_array_elements(s -> 'seats') x WHERE x ->> 'result' = 'foul'), 0) AS fouls,
    coalesce(jsonb_array_length(s -> 'seats'), 0) AS seats
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
                 FILTER (WHERE event IN ('BankerCards', 'SeatCards')), 0)::bigint AS unreadable
    FROM floor_records
    WHERE round IS NOT NULL
      AND event IN ('RoundOpened', 'RoundSettled', 'RoundVoided', 'ReadCorrected', 'BankerCards', 'SeatCards')
    GROUP BY table_id, round
) per_round;

CREATE TABLE floor_rounds (
    table_id    text NOT NULL REFERENCES floor_tables,
    round       text NOT NULL,
    gaming_day  date NOT NULL,
    dealer      text NOT NULL,
    began       timestamptz NOT NULL,
    settled     boolean NOT NULL,
    misdeal     boolean NOT NULL,
    voided      boolean NOT NULL,
    corrections bigint NOT NULL,
    unreadable  bigint NOT NULL,
    wagers      numeric NOT NULL,
    commission  numeric NOT NULL,
    collection  numeric NOT NULL,
    banker_net  numeric NOT NULL,
    house_net   numeric NOT NULL,
    fouls       bigint NOT NULL,
    seats       bigint NOT NULL,
    PRIMARY KEY (table_id, round)
);
CREATE INDEX floor_rounds_day ON floor_rounds (gaming_day);

INSERT INTO floor_rounds SELECT * FROM floor_round_figures;
