-- The availability probe (src/domain/redis/availability.ts): a script, not a PING. Under
-- `CLIENT PAUSE … WRITE` (what FAILOVER does, for one) Redis still answers PING while every script of
-- this store waits; under `CLIENT PAUSE` (ALL) everything waits. Redis treats a script without the
-- no-writes flag as one that may write, so it holds this one exactly when it would hold the session
-- scripts: the probe hangs in both cases. It also sweeps expired sessions, so that they go within
-- seconds of their expiry without traffic.
sweep(SWEEP_ON_READ)
return 1
