-- A round's figures are counted by the one fold of its records (appliance.records.round_figures), as the
-- table, the dispute view and the audit tools read a round, and kept in floor_rounds as its records
-- arrive. The view that counted them apart in SQL is gone: after a supervisor's correction it still
-- counted the settlement the correction had reopened. The rows kept stand until a record of their
-- round arrives.

DROP VIEW floor_round_figures;
