-- The floor's own audit of its door: every login to the floor's pages (who, from where, when), every
-- wrong password, every attempt refused or made while locked out, and every logout. Rows are only
-- added (appliance floor prune deletes those past the retention period). The name is the one given,
-- cut to 64 characters: a refused one is not necessarily a user's (a password typed into the name's
-- field, sometimes), so the table is the floor's own role's alone, as floor_users is.

CREATE TABLE floor_logins (
    id       bigserial PRIMARY KEY,
    at       timestamptz NOT NULL DEFAULT now(),
    name     text NOT NULL,
    address  text NOT NULL,  -- the client's, as the door saw it (behind --tls-proxy: the proxy's X-Forwarded-For)
    outcome  text NOT NULL CHECK (outcome IN ('success', 'failure', 'lockout', 'logout')),
    role     text,           -- the user's, for a success and a logout
    reason   text            -- a refusal's, as the client was answered
);
CREATE INDEX floor_logins_at ON floor_logins (at);
CREATE INDEX floor_logins_name ON floor_logins (name, at);
REVOKE ALL ON floor_logins FROM PUBLIC;
