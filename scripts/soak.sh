#!/usr/bin/env bash
# Memory soak of the real daemon under a live load (issue 14 item 8):
# appends RATE events a second to the spool for MINUTES minutes while
# `sepad run` ingests them, samples the daemon's RSS and anonymous memory
# (RssAnon) every 10 s, and checks that the anonymous memory at the end is
# within 10% of the anonymous memory at REF minutes: the median of the
# minute ending at REF against that of the last minute. In those two
# minutes RssAnon is read every 2 s (30 samples; /proc asks the daemon
# nothing): a single sample moves by up to 2.5 MiB with where the Go
# collector is in its cycle and how much the scavenger has returned, so
# the median of the six 10-second samples alone moved by half a MiB
# between runs of one binary. VmRSS also counts the
# pages of the database file the daemon has mapped (bbolt reads through
# mmap): they grow with the database, belong to the page cache and are
# given back under memory pressure, so they are printed, not checked.
# The Go heap in use and the collector's next target (go_memstats_*, from
# /metrics on the socket) are printed beside them, to tell the Go heap
# from the rest of the anonymous memory.
#
# Usage: scripts/soak.sh [MINUTES=30] [RATE=1000] [REF=5]
# SOAK_API_EVERY=SECONDS (a multiple of 10, default 10) asks the daemon's
# API (/metrics and `sepad status`) only that often; RSS and RssAnon are
# still read from /proc every 10 s. The API's own traffic costs memory
# (the goroutines that serve it keep their stacks for reuse), so this
# tells the daemon's growth under load from that of the observer.
# SOAK_PROFILES=DIR also saves heap profiles (/debug/pprof/heap on the
# socket) at REF minutes and at the end, with the binary, into DIR:
#   go tool pprof -top -sample_index=inuse_space DIR/sepad DIR/heap-1800.pb.gz
# The daemon's log is saved there too at the end (daemon.log; with
# GODEBUG=gctrace=1 in the environment it holds a line per collection).
# Prints the samples as CSV (seconds,rss_kib,anon_kib,go_heap_kib,
# go_goal_kib,go_stack_kib,cpu_s,lines_committed,lag_events), cpu_s being
# the daemon's user and system CPU seconds so far; exits 1 when the
# end anonymous memory is more than 10% above the reference, 2 when the
# run does not measure what it should: the daemon committed less than
# 95% of RATE·MINUTES·60 lines, or in either compared minute it was catching up
# a backlog (median lag over RATE events, one second's worth: it then
# reads full batches of collector.batch_lines, whose memory is not that
# of a steady load). Both happen on a machine too loaded to run the soak.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${1:-30}
rate=${2:-1000}
ref=${3:-5}
every=${SOAK_API_EVERY:-10}
if ! [[ $every =~ ^[1-9][0-9]*$ ]] || [ $((every % 10)) -ne 0 ]; then
  echo "soak.sh: SOAK_API_EVERY=$every: want a positive multiple of 10 (seconds)" >&2
  exit 2
fi
dir=$(mktemp -d)
trap 'kill $gen $pid 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
. scripts/daemonenv.sh
daemon_env "$dir"
"$dir/sepad" run --home "$dir/home" --log-level warn 2>"$dir/daemon.log" &
pid=$!
sleep 1
# Two minutes more than the run, so the load goes on through the last
# compared minute (the generator is stopped at the end).
"$dir/spoolgen" -rate "$rate" -n $((rate * 60 * (minutes + 2))) -o "$dir/home/events.jsonl" &
gen=$!
start=$(date +%s)
sock="$dir/home/sepad.sock"
# go NAME: a go_memstats_NAME_bytes gauge in KiB ("" without curl).
metrics=
gostat() { awk -v m="go_memstats_$1_bytes" '$1 == m {printf "%d", $2 / 1024}' <<<"$metrics"; }
profile() {
  [ -n "${SOAK_PROFILES:-}" ] || return 0
  mkdir -p "$SOAK_PROFILES"
  cp "$dir/sepad" "$SOAK_PROFILES/sepad"
  curl -sS --unix-socket "$sock" -o "$SOAK_PROFILES/heap-$1.pb.gz" http://sepad/debug/pprof/heap || true
  cp "$dir/daemon.log" "$SOAK_PROFILES/daemon.log"
}
# cpu: the daemon's user and system CPU seconds (/proc/PID/stat fields 14
# and 15, in clock ticks).
tck=$(getconf CLK_TCK)
cpu() { awk -v t="$tck" '{sub(/^.*\) /, ""); printf "%.1f", ($12 + $13) / t}' /proc/$pid/stat; }
end=$((minutes * 60))
lines=0 lag=0
echo "seconds,rss_kib,anon_kib,go_heap_kib,go_goal_kib,go_stack_kib,cpu_s,lines_committed,lag_events"
ref_win=() end_win=() ref_lag=() end_lag=()
for ((t = 10; t <= end; t += 10)); do
  # In a compared minute, four more samples of RssAnon between two rows.
  if { [ $t -gt $((ref * 60 - 60)) ] && [ $t -le $((ref * 60)) ]; } || [ $t -gt $((end - 60)) ]; then
    for ((s = t - 8; s < t; s += 2)); do
      wait_s=$((start + s - $(date +%s)))
      if [ "$wait_s" -gt 0 ]; then sleep "$wait_s"; fi
      a=$(awk '/^RssAnon/ {print $2}' /proc/$pid/status 2>/dev/null || true)
      [ -n "$a" ] || continue
      if [ $t -gt $((end - 60)) ]; then end_win+=("$a"); else ref_win+=("$a"); fi
    done
  fi
  # Sample t seconds after the generator started, by the clock: a loop
  # of sleep 10 drifts by the time the samples take.
  wait_s=$((start + t - $(date +%s)))
  if [ "$wait_s" -gt 0 ]; then sleep "$wait_s"; fi
  kill -0 $pid 2>/dev/null || { echo "daemon exited:"; cat "$dir/daemon.log"; exit 1; }
  rss=$(awk '/^VmRSS/ {print $2}' /proc/$pid/status)
  anon=$(awk '/^RssAnon/ {print $2}' /proc/$pid/status)
  if [ $((t % every)) -eq 0 ] || [ $t -eq $end ]; then
    metrics=$(curl -sS --unix-socket "$sock" http://sepad/metrics 2>/dev/null || true)
    # Lines committed: the sum of the status's event counts; the lag: the
    # events written and not committed yet.
    st=$("$dir/sepad" status --home "$dir/home" --json 2>/dev/null || true)
    lines=$(awk -F'[:,]' '/"events": \{/ {in_ev = 1; next} in_ev && /\}/ {in_ev = 0} in_ev {s += $2} END {print s+0}' <<<"$st")
    lag=$(awk -F'[:,]' '/^  "lag_events":/ {print $2 + 0}' <<<"$st")
  fi
  echo "$t,$rss,$anon,$(gostat heap_inuse),$(gostat next_gc),$(gostat stack_inuse),$(cpu),$lines,${lag:-0}"
  if [ $t -gt $((ref * 60 - 60)) ] && [ $t -le $((ref * 60)) ]; then ref_win+=("$anon"); ref_lag+=("${lag:-0}"); fi
  if [ $t -gt $((end - 60)) ]; then end_win+=("$anon"); end_lag+=("${lag:-0}"); fi
  if [ $t -eq $((ref * 60)) ]; then profile $t; fi
done
profile $end
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
ref_anon=$(median "${ref_win[@]}")
anon=$(median "${end_win[@]}")
db=$(stat -c %s "$dir/home/sepa.db")
echo "anonymous memory (median of a minute's ${#ref_win[@]} and ${#end_win[@]} samples) at ${ref} min: ${ref_anon} KiB; at ${minutes} min: ${anon} KiB; VmRSS at the end ${rss} KiB; database $((db / 1024)) KiB; $lines lines committed"
if [ $((lines * 100)) -lt $((rate * end * 95)) ]; then
  echo "INVALID: $lines lines committed, less than 95% of ${rate}/s for ${end} s: the machine could not run the soak at this rate"
  exit 2
fi
for l in "$(median "${ref_lag[@]}")" "$(median "${end_lag[@]}")"; do
  if [ "$l" -gt "$rate" ]; then
    echo "INVALID: the daemon was catching up a backlog in a compared minute (median lag $l events): the machine could not run the soak steadily"
    exit 2
  fi
done
if [ "$ref_anon" -gt 0 ] && [ $((anon * 100)) -gt $((ref_anon * 110)) ]; then
  echo "FAIL: end anonymous memory more than 10% above the ${ref}-minute one"
  exit 1
fi
echo "OK: end anonymous memory within 10% of the ${ref}-minute one"
