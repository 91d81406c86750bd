#!/usr/bin/env bash
# Ingestion of a pre-written spool by the real daemon: wall time, peak RSS
# and database size. Usage: scripts/bench-ingest.sh [EVENTS]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/sepad" ./cmd/sepad
go run ./internal/sessiongen/spoolgen -n "$n" -o "$dir/home/events.jsonl" 2>/dev/null || { mkdir -p "$dir/home"; chmod 700 "$dir/home"; go run ./internal/sessiongen/spoolgen -n "$n" -o "$dir/home/events.jsonl"; }
chmod 700 "$dir/home"
size=$(stat -c %s "$dir/home/events.jsonl")
export SEPA_CONFIG= XDG_CONFIG_HOME="$dir/none" HOME="$dir/user"
mkdir -p "$dir/user"
start=$(date +%s%N)
/usr/bin/time -v -o "$dir/time.txt" "$dir/sepad" run --home "$dir/home" --log-level warn &
pid=$!
# The daemon is caught up when its socket reports no lag; without the API,
# poll the spool offset through `sepad status --json`.
while sleep 3; do
  lag=$("$dir/sepad" status --home "$dir/home" --json 2>/dev/null | sed -n 's/.*"lag_bytes": *\([0-9]*\).*/\1/p' | head -1)
  [ "${lag:-1}" = "0" ] && break
done
end=$(date +%s%N)
kill -TERM "$(pgrep -P $pid sepad || echo $pid)" 2>/dev/null || true
wait $pid || true
secs=$(echo "scale=2; ($end-$start)/1000000000" | bc)
echo "events: $n  spool: $((size/1048576)) MiB  wall: ${secs}s  rate: $(echo "$n/$secs" | bc) events/s"
grep "Maximum resident" "$dir/time.txt"
echo "db: $(( $(stat -c %s "$dir/home/sepa.db") / 1048576 )) MiB"
