#!/bin/sh
# hookbench.sh: wall time per call of `sepad hook` against `jq -c . >> spool`
# and `cat >> spool`, on the same ~2 KB PostToolUse payload, measured side by
# side in one run. Prints the machine, the per-call times and the ratios.
#
#   hooks/bench/hookbench.sh [ROUNDS] [CALLS_PER_ROUND]
#
# A shell loop runs each command CALLS times per round (fork+exec from sh,
# with the shell doing the redirections, as Claude Code's hook runner does);
# rounds rotate the order of the commands; the median of the per-round means
# is reported. hyperfine is not used: version 1.15 (Debian 12) cannot feed
# stdin without a shell, and its shell-spawn correction is unreliable for
# commands that take about as long as the shell itself (it reported 0 ms
# for cat).
set -eu
rounds=${1:-10}
calls=${2:-50}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# sepad as README's install builds it (CGO_ENABLED=0: a static binary, which
# starts faster), and as a plain `go build` makes it where a C compiler is
# present (linked against libc through package net).
(cd "$root" && CGO_ENABLED=0 go build -o "$work/sepad" ./cmd/sepad && CGO_ENABLED=1 go build -o "$work/sepadcgo" ./cmd/sepad)
# Reference binaries, to see where the time goes:
#  - goempty: a Go program that does nothing;
#  - appender: the smallest Go hook, which reads stdin and appends it under
#    flock with plain system calls (no JSON, no enrichment);
#  - floor: the sepad binary (all of cmd/sepad) exiting in its first package
#    init, before any work: what a binary of sepad's size costs to start;
#  - hookonly: sepad-hook, the same hook code as `sepad hook` in a binary
#    that links only package hooks (what `sepad install` uses when present).
mkdir -p "$work/ref/appender"
printf 'package main\n\nfunc main() {}\n' >"$work/ref/empty.go"
cat >"$work/ref/appender/main.go" <<'GO'
package main

import "syscall"

func main() {
	buf := make([]byte, 0, 64<<10)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(0, buf[len(buf):cap(buf)])
		if n <= 0 || err != nil {
			break
		}
		buf = buf[:len(buf)+n]
	}
	fd, err := syscall.Open(spool(), syscall.O_WRONLY|syscall.O_APPEND|syscall.O_CREAT|syscall.O_CLOEXEC, 0o600)
	if err != nil {
		return
	}
	syscall.Flock(fd, syscall.LOCK_EX)
	syscall.Write(fd, buf)
	syscall.Close(fd)
}
GO
printf 'package main\n\nimport "syscall"\n\nfunc spool() string { s, _ := syscall.Getenv("SPOOL"); return s }\n' >"$work/ref/appender/spool.go"
(cd "$work/ref/appender" && printf 'module appender\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -o "$work/appender" .)
# The floor: a copy of cmd/sepad whose fast-hook package exits at once. It
# must live inside the module to import sepad's packages; _hookbench is
# ignored by ./... and removed on exit.
fl="$root/_hookbench"
trap 'rm -rf "$work" "$fl"' EXIT INT TERM
rm -rf "$fl" && mkdir -p "$fl/sepadfloor/exitnow"
for f in "$root"/cmd/sepad/*.go; do case $f in *_test.go) ;; *) cp "$f" "$fl/sepadfloor/" ;; esac; done
sed -i 's#github.com/sepad/sepad/cmd/sepad/internal/fasthook#github.com/sepad/sepad/_hookbench/sepadfloor/exitnow#' "$fl/sepadfloor/main.go"
printf 'package exitnow\n\nimport "syscall"\n\nfunc init() { syscall.Exit(0) }\n' >"$fl/sepadfloor/exitnow/exitnow.go"
(cd "$root" && CGO_ENABLED=0 go build -o "$work/goempty" "$work/ref/empty.go" && CGO_ENABLED=0 go build -o "$work/hookonly" ./cmd/sepad-hook && CGO_ENABLED=0 go build -o "$work/floor" ./_hookbench/sepadfloor)
rm -rf "$fl"
command -v jq >/dev/null || { echo "jq is needed (apt-get install -y jq)" >&2; exit 1; }

# A typical PostToolUse (Bash) payload of about 2 KB.
out=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "ok  \\tgithub.com/acme/shop/pkg%02d\\t0.%03ds\\n", i, i * 7 }')
printf '{"session_id":"9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c","transcript_path":"/home/ana/.claude/projects/-home-ana-src-shop/9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_response":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01ABCDEF","duration_ms":2300}\n' "$root" "$out" >"$work/payload.json"
jq -e . "$work/payload.json" >/dev/null
mkdir -p "$work/s" "$work/j" "$work/c" "$work/o" "$work/g" "$work/a"

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //') x $(nproc 2>/dev/null || echo ?)"
echo "os: $(uname -srm); $(go version); jq $(jq --version); load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "sepad binary: $(wc -c <"$work/sepad") bytes; payload: $(wc -c <"$work/payload.json") bytes"

run() { # name
	case $1 in
	sepad) "$work/sepad" hook --home "$work/s" <"$work/payload.json" ;;
	sepadcgo) "$work/sepadcgo" hook --home "$work/g" <"$work/payload.json" ;;
	jq) jq -c . <"$work/payload.json" >>"$work/j/spool" ;;
	cat) cat <"$work/payload.json" >>"$work/c/spool" ;;
	hookonly) SEPA_HOME="$work/o" "$work/hookonly" hook <"$work/payload.json" ;;
	goempty) "$work/goempty" <"$work/payload.json" ;;
	appender) SPOOL="$work/a/spool" "$work/appender" <"$work/payload.json" ;;
	floor) "$work/floor" hook <"$work/payload.json" ;;
	esac
}
all="sepad jq cat hookonly goempty sepadcgo appender floor"
for n in $all; do run $n; run $n; done # warm the page cache

echo "== loop: $rounds rounds x $calls calls per command"
: >"$work/times"
r=0
while [ $r -lt $rounds ]; do
	# Rotate the order so no command always runs first or last.
	order=$(echo $all | awk -v r=$r '{ for (i = 0; i < NF; i++) printf "%s ", $((i + r) % NF + 1) }')
	for n in $order; do
		t0=$(date +%s%N)
		i=0
		while [ $i -lt $calls ]; do run $n; i=$((i + 1)); done
		t1=$(date +%s%N)
		echo "$n $(((t1 - t0) / calls))" >>"$work/times"
	done
	r=$((r + 1))
done
med() { grep "^$1 " "$work/times" | cut -d' ' -f2 | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
s=$(med sepad) j=$(med jq) c=$(med cat) o=$(med hookonly) e=$(med goempty) g=$(med sepadcgo) a=$(med appender) f=$(med floor)
printf 'per call (median of round means): sepad hook %d µs, sepad-hook %d µs, jq %d µs, cat %d µs\n' \
	$((s / 1000)) $((o / 1000)) $((j / 1000)) $((c / 1000))
printf 'references: empty Go program %d µs, minimal Go appender %d µs, sepad binary exiting in its first init %d µs, sepad hook built with cgo %d µs\n' \
	$((e / 1000)) $((a / 1000)) $((f / 1000)) $((g / 1000))
awk -v s="$s" -v j="$j" -v c="$c" -v o="$o" -v e="$e" -v g="$g" -v a="$a" -v f="$f" 'BEGIN {
	printf "ratios: sepad hook /jq = %.2f (target <= 0.2), /cat = %.2f (target <= 1.5)\n", s / j, s / c
	printf "        sepad-hook (what sepad install uses when installed) /jq = %.2f, /cat = %.2f\n", o / j, o / c
	printf "        sepad hook with cgo /jq = %.2f, /cat = %.2f\n", g / j, g / c
	printf "references /cat: empty Go %.2f, minimal Go appender %.2f, sepad binary exiting in its first init %.2f\n", e / c, a / c, f / c }'

# Every call must have produced exactly one line.
want=$((rounds * calls + 2))
for d in s j c o g a; do
	f=$work/$d/spool
	case $d in s | o | g) f=$work/$d/events.jsonl ;; esac
	got=$(wc -l <"$f")
	[ "$got" -eq "$want" ] || echo "WARNING: $f has $got lines, want $want" >&2
done
