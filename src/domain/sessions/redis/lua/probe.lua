-- The availability probe: a script that may write, not a PING, so that it fails (paused, OOM, READONLY,
-- LOADING) exactly when the requests' scripts would. It answers Redis's clock, in ms.
return now
