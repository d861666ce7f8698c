-- Expired sessions removed, a hundred at most, beside each probe (src/domain/sessions/redis/availability.ts),
-- so that they go within seconds of their expiry without traffic; it only deletes, and so runs at
-- maxmemory too (flags=allow-oom), where it frees memory.
sweep(SWEEP_ON_READ)
return 1
