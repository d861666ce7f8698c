-- Expired sessions removed beside each probe, so that they go without traffic (it runs at maxmemory too).
sweep(SWEEP_ON_READ)
return 1
