-- The availability probe (src/domain/sessions/redis/availability.ts): a script, not a PING, and one that Redis
-- treats as one that may write (it has no no-writes flag), so that it fails exactly when this store's
-- requests would. Under `CLIENT PAUSE … WRITE` (what FAILOVER does, for one) Redis still answers PING
-- while every such script waits; under `CLIENT PAUSE` (ALL) everything waits: the probe hangs in both.
-- At maxmemory Redis refuses it (OOM), on a replica too (READONLY), and while loading (LOADING), as it
-- refuses the requests' scripts. Its answer is Redis's clock, in ms (see src/domain/sessions/redis/clock.ts).
return now
