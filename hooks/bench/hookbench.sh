#!/bin/sh
# hookbench.sh: wall time per call of sepad's hook against a `jq -c . >> spool`
# hook and a `cat >> spool` hook, on the same ~2 KB PostToolUse payload,
# measured side by side in one run. Prints the machine, the per-call times
# and the ratios.
#
#   hooks/bench/hookbench.sh [ROUNDS] [CALLS_PER_ROUND]
#
# Two views, both in the same loop:
#  - "as Claude Code runs them": a shell-form hook is `sh -c '<command>'`
#    (Claude Code passes the command line to /bin/sh), so the cat and jq
#    hooks, whose `>> spool` needs a shell, pay for one; sepad's hook is
#    installed in exec form ("command" + "args", Claude Code >= 2.1.139),
#    which Claude Code starts directly. The shell-form sepad hook
#    (`sepad install --shell-form`) is measured too.
#  - "process alone": every command started directly by the loop's shell,
#    which does the redirections, so the figures compare the programs
#    themselves (cat, dd in append mode: the exec-form floor; references
#    that show where the time goes).
# A shell loop runs each command CALLS times per round (fork+exec from sh,
# as Claude Code's hook runner forks and execs); rounds rotate the order of
# the commands; the median of the per-round means is reported. hyperfine is
# not used: version 1.15 (Debian 12) cannot feed stdin without a shell, and
# its shell-spawn correction is unreliable for commands that take about as
# long as the shell itself (it reported 0 ms for cat).
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
# stdhook: the minimal hook written with the standard library (issue 21's
# reference): read stdin, check it is a JSON object, add the time and a
# sha256, append one line under flock.
mkdir -p "$work/ref/stdhook"
cat >"$work/ref/stdhook/main.go" <<'GO'
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		return
	}
	var payload map[string]json.RawMessage
	if json.Unmarshal(in, &payload) != nil {
		return
	}
	sum := sha256.Sum256(in)
	payload["sepa"], _ = json.Marshal(map[string]string{"ts": time.Now().UTC().Format(time.RFC3339Nano), "sha256": hex.EncodeToString(sum[:])})
	line, err := json.Marshal(payload)
	if err != nil {
		return
	}
	f, err := os.OpenFile(filepath.Join(os.Getenv("SPOOLDIR"), "spool"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
	f.Write(append(line, '\n'))
}
GO
(cd "$work/ref/stdhook" && printf 'module stdhook\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -o "$work/stdhook" .)
(cd "$work/ref/appender" && printf 'module appender\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -o "$work/appender" .)
trap 'rm -rf "$work"' EXIT INT TERM
(cd "$root" && CGO_ENABLED=0 go build -o "$work/goempty" "$work/ref/empty.go" && CGO_ENABLED=0 go build -o "$work/hookonly" ./cmd/sepad-hook)
command -v jq >/dev/null || { echo "jq is needed (apt-get install -y jq)" >&2; exit 1; }

# A typical PostToolUse (Bash) payload of about 2 KB.
out=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "ok  \\tgithub.com/acme/shop/pkg%02d\\t0.%03ds\\n", i, i * 7 }')
printf '{"session_id":"9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c","transcript_path":"/home/ana/.claude/projects/-home-ana-src-shop/9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_response":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01ABCDEF","duration_ms":2300}\n' "$root" "$out" >"$work/payload.json"
jq -e . "$work/payload.json" >/dev/null
mkdir -p "$work/t" "$work/s" "$work/j" "$work/c" "$work/o" "$work/g" "$work/a" "$work/d" "$work/cs" "$work/js" "$work/os" "$work/ss"

echo "== machine"
echo "cpu: $(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ //') x $(nproc 2>/dev/null || echo ?)"
echo "os: $(uname -srm); $(go version); jq $(jq --version); sh: $(readlink -f /bin/sh); load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)"
echo "sepad binary: $(wc -c <"$work/sepad") bytes; sepad-hook: $(wc -c <"$work/hookonly") bytes; payload: $(wc -c <"$work/payload.json") bytes"

p=$work/payload.json
run() { # name
	case $1 in
	# As Claude Code runs them.
	cat_sh) sh -c "cat >> '$work/cs/spool'" <"$p" ;;
	jq_sh) sh -c "jq -c . >> '$work/js/spool'" <"$p" ;;
	hookonly_sh) sh -c "'$work/hookonly' hook --home '$work/os'" <"$p" ;;
	sepad_sh) sh -c "'$work/sepad' hook --home '$work/ss'" <"$p" ;;
	# Started directly: exec form for sepad's hooks, the programs alone
	# for the others.
	hookonly) "$work/hookonly" hook --home "$work/o" <"$p" ;;
	sepad) "$work/sepad" hook --home "$work/s" <"$p" ;;
	cat) cat <"$p" >>"$work/c/spool" ;;
	dd) dd of="$work/d/spool" oflag=append conv=notrunc bs=64K status=none <"$p" ;;
	jq) jq -c . <"$p" >>"$work/j/spool" ;;
	sepadcgo) "$work/sepadcgo" hook --home "$work/g" <"$p" ;;
	goempty) "$work/goempty" <"$p" ;;
	appender) SPOOL="$work/a/spool" "$work/appender" <"$p" ;;
	stdhook) SPOOLDIR="$work/t" "$work/stdhook" <"$p" ;;
	esac
}
all="cat_sh jq_sh hookonly sepad hookonly_sh sepad_sh cat dd jq goempty appender stdhook sepadcgo"
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
row() { # label name cat_ref jq_ref
	m=$(med "$2")
	awk -v l="$1" -v m="$m" -v c="$3" -v j="$4" 'BEGIN { printf "  %-52s %7.3f ms  %5.2f x cat  %5.2f x jq\n", l, m / 1e6, m / c, m / j }'
}
cs=$(med cat_sh) js=$(med jq_sh) c=$(med cat) j=$(med jq)
st=$(med stdhook) se=$(med sepad)
echo "== issue 21's budget: sepad-hook / the standard-library hook (<= 1.25)"
awk -v a="$(med hookonly)" -v b="$st" 'BEGIN { printf "  sepad-hook / stdhook: %.2f\n", a / b }'
echo "== as Claude Code runs each hook (targets: <= 1.5 x the cat hook, <= 0.2 x the jq hook)"
row "cat >> spool (shell form)" cat_sh "$cs" "$js"
row "jq -c . >> spool (shell form)" jq_sh "$cs" "$js"
row "sepad-hook, exec form (what sepad install writes)" hookonly "$cs" "$js"
row "sepad hook, exec form (no sepad-hook beside sepad)" sepad "$cs" "$js"
row "sepad-hook, shell form (install --shell-form)" hookonly_sh "$cs" "$js"
row "sepad hook, shell form" sepad_sh "$cs" "$js"
echo "== the processes alone, started directly (ratios to cat and jq started the same way)"
row "cat >> spool" cat "$c" "$j"
row "dd oflag=append (an exec-form floor)" dd "$c" "$j"
row "empty Go program" goempty "$c" "$j"
row "minimal Go appender (flock, no JSON)" appender "$c" "$j"
row "minimal standard-library hook (json, sha256, os)" stdhook "$c" "$j"
row "sepad-hook hook" hookonly "$c" "$j"
row "sepad hook" sepad "$c" "$j"
row "sepad hook, cgo build" sepadcgo "$c" "$j"
row "jq -c . >> spool" jq "$c" "$j"

# Every call must have produced exactly one line.
want=$((rounds * calls + 2))
for d in s j c o g a d t cs js os ss; do
	f=$work/$d/spool
	case $d in s | o | g | n | os | ss) f=$work/$d/events.jsonl ;; esac
	got=$(wc -l <"$f")
	[ "$got" -eq "$want" ] || echo "WARNING: $f has $got lines, want $want" >&2
done
