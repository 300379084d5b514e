-- The floor's first schema: enrolled tables, their escrowed keys, the shipped records, what was
-- refused, alerts and zone images.

CREATE TABLE floor_tables (
    table_id      text PRIMARY KEY CHECK (table_id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,31}$'),
    token_sha256  text NOT NULL,                      -- the table's shipping token, hashed
    enrolled_at   timestamptz NOT NULL DEFAULT now(),
    head_seq      bigint NOT NULL DEFAULT 0,          -- the anchored head: last verified record
    head_hash     text NOT NULL DEFAULT repeat('0', 64),
    records       bigint NOT NULL DEFAULT 0,
    last_seen     timestamptz,
    table_says    bigint,                             -- the head the table last reported for its own log
    recording     boolean,                            -- the table last said its log can be written (null: unknown)
    held          boolean NOT NULL DEFAULT false,
    phase         text,
    current_round text,
    last_settlement jsonb,
    devices       jsonb NOT NULL DEFAULT '{}'
);

-- The tables' HMAC audit keys (escrowed at enrollment). Only the floor service's role reads them:
-- see docs/floor.md for the grants.
CREATE TABLE floor_keys (
    table_id  text PRIMARY KEY REFERENCES floor_tables ON DELETE CASCADE,
    audit_key bytea NOT NULL
);
REVOKE ALL ON floor_keys FROM PUBLIC;

CREATE TABLE floor_records (
    table_id    text NOT NULL REFERENCES floor_tables,
    seq         bigint NOT NULL,
    ts          timestamptz NOT NULL,                 -- written at the table
    gaming_day  date NOT NULL,
    event       text NOT NULL,
    who         text NOT NULL,
    round       text,
    hash        text NOT NULL,                        -- SHA-256 of the line: the next record's prev
    line        text NOT NULL,                        -- the record's exact bytes, so it verifies again
    data        jsonb NOT NULL,
    received_at timestamptz NOT NULL DEFAULT clock_timestamp(),   -- committed at the floor (lag = this - ts)
    PRIMARY KEY (table_id, seq)
);
CREATE INDEX floor_records_day ON floor_records (gaming_day, event);
CREATE INDEX floor_records_round ON floor_records (table_id, round, seq);
-- Game recall: a table's last rounds.
CREATE INDEX floor_records_opened ON floor_records (table_id, seq) WHERE event = 'RoundOpened';

-- Records the floor would not store as good: forged, under another key, out of chain, or a
-- different record where one is already anchored. Kept as evidence, once each.
CREATE TABLE floor_refused (
    id          bigserial PRIMARY KEY,
    table_id    text NOT NULL REFERENCES floor_tables,
    seq         bigint,
    line        text NOT NULL,
    line_sha256 text NOT NULL,
    kind        text NOT NULL,
    problem     text NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now(),
    UNIQUE (table_id, line_sha256)
);

CREATE TABLE floor_alerts (
    id        bigserial PRIMARY KEY,
    table_id  text NOT NULL,
    kind      text NOT NULL,
    message   text NOT NULL,
    at        timestamptz NOT NULL DEFAULT now(),
    closed_at timestamptz
);
-- One open alert of a kind per table: a table retrying a refused record does not flood the pit.
CREATE UNIQUE INDEX floor_alerts_open ON floor_alerts (table_id, kind) WHERE closed_at IS NULL;

CREATE TABLE floor_images (
    sha256      text PRIMARY KEY,
    png         bytea NOT NULL,
    received_at timestamptz NOT NULL DEFAULT now()
);
-- Images cited by stored records that the floor does not hold yet (asked of the table in turn).
CREATE TABLE floor_images_wanted (
    table_id text NOT NULL REFERENCES floor_tables,
    sha256   text NOT NULL,
    PRIMARY KEY (table_id, sha256)
);
