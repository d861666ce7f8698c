-- The availability probe: a script that may write, not a PING, so that it hangs (CLIENT PAUSE) or fails
-- (OOM, READONLY, LOADING) exactly when the requests' scripts would. It answers Redis's clock, in ms.
return now
