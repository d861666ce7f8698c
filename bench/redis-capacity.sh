#!/usr/bin/env bash
# Redis CPU per request under the soak's workload (docs/operations.md, "Capacity of one Redis"). After
# npm run build, with redis-server and redis-cli installed: bash bench/redis-capacity.sh
# (LEARNERS, default 200; SECONDS_, default 20).
set -euo pipefail
dir=$(mktemp -d)
port=$(node -e 's=require("net").createServer().listen(0,()=>{console.log(s.address().port);s.close()})')
redis-server --port "$port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no --daemonize yes --pidfile "$dir/pid" >/dev/null
cli () { redis-cli -p "$port" "$@"; }
until cli ping >/dev/null 2>&1; do sleep 0.1; done
cpu () { cli info cpu | awk -F: '/used_cpu_(user|sys):/ {s+=$2} END {printf "%.3f", s}'; }
cli config resetstat >/dev/null
before=$(cpu)
out=$(REDIS_URL=redis://127.0.0.1:$port SOAK_LEARNERS=${LEARNERS:-200} SOAK_SECONDS=${SECONDS_:-20} node dist/bench/soak.js)
after=$(cpu)
echo "$out"
requests=$(sed -nE 's/.* ([0-9]+) requests .*/\1/p' <<<"$out")
echo "redis cpu: $(awk -v a="$after" -v b="$before" 'BEGIN{printf "%.3f", a-b}') s for $requests requests = $(awk -v a="$after" -v b="$before" -v r="$requests" 'BEGIN{printf "%.1f", (a-b)*1e6/r}') µs/request"
cli info commandstats | grep -E "cmdstat_(evalsha|eval|wait|info)" | sed -E 's/,rejected_calls.*//'
cli shutdown nosave >/dev/null 2>&1 || true
rm -rf "$dir"
