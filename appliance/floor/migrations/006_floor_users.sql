-- The people who may use the floor's pages: a name, a role (docs/floor.md says what each sees) and a
-- password kept as a slow salted hash (scrypt), never in clear. Tables ship with their own tokens.

CREATE TABLE floor_users (
    name          text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$'),
    role          text NOT NULL CHECK (role IN ('pit', 'accounting', 'surveillance')),
    password_hash text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
REVOKE ALL ON floor_users FROM PUBLIC;
