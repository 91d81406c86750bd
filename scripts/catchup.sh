#!/usr/bin/env bash
# Catching up a backlog (issue 14 item 8, BENCHMARKS.md "16 KiB pages"):
# writes N spoolgen lines at once, starts `sepad run` on them, and prints
# what the daemon took to commit them all: wall time, its CPU, its peak
# anonymous memory (RssAnon, sampled every 0.5 s), the bytes it passed to
# write calls (wchar in /proc/PID/io: write_bytes also counts what ext4
# attributes to the process at writeback) and the database's size.
#
# Usage: scripts/catchup.sh [N=1800000]   (Linux: reads /proc)
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1800000}
dir=$(mktemp -d)
trap 'kill $pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
. scripts/daemonenv.sh
daemon_env "$dir"
"$dir/spoolgen" -n "$n" -o "$dir/home/events.jsonl"
"$dir/sepad" run --home "$dir/home" --log-level warn 2>"$dir/daemon.log" &
pid=$!
start=$(date +%s.%N) peak=0 i=0 lines=0
while sleep 0.5; do
  kill -0 $pid 2>/dev/null || { echo "daemon exited:"; cat "$dir/daemon.log"; exit 1; }
  a=$(awk '/^RssAnon/ {print $2}' /proc/$pid/status)
  [ "$a" -gt "$peak" ] && peak=$a
  i=$((i + 1))
  [ $((i % 4)) = 0 ] || continue
  st=$("$dir/sepad" status --home "$dir/home" --json 2>/dev/null || true)
  lines=$(awk -F'[:,]' '/"events": \{/ {in_ev = 1; next} in_ev && /\}/ {in_ev = 0} in_ev {s += $2} END {print s+0}' <<<"$st")
  [ "$lines" -ge "$n" ] && break
done
end=$(date +%s.%N)
cpu=$(awk '{printf "%.1f", ($14 + $15) / 100}' /proc/$pid/stat)
wchar=$(awk '/^wchar/ {printf "%d", $2 / 1048576}' /proc/$pid/io)
db=$(($(stat -c %s "$dir/home/sepa.db") / 1048576))
awk -v s="$start" -v e="$end" -v l="$lines" -v c="$cpu" -v p="$peak" -v w="$wchar" -v d="$db" \
  'BEGIN {printf "%d lines committed in %.1f s wall, daemon CPU %s s, peak RssAnon %d KiB, written %d MiB, database %d MiB\n", l, e - s, c, p, w, d}'
