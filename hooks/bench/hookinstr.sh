#!/bin/sh
# hookinstr.sh: instructions per hook call (valgrind --tool=callgrind),
# which stay the same whatever else the machine is doing: sepad-hook
# against the minimal standard-library hook of hookbench.sh and an empty Go
# program, on the same ~2 KB PostToolUse payload. Issue 21's budget:
# sepad-hook within 1.25 x the standard-library hook.
#
#   hooks/bench/hookinstr.sh [RUNS]
set -eu
runs=${1:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
command -v valgrind >/dev/null || { echo "valgrind is needed (apt-get install -y valgrind)" >&2; exit 1; }
mkdir -p "$work/stdhook"
# The standard-library hook, as hookbench.sh builds it.
sed -n '/^cat >"$work\/ref\/stdhook\/main.go" <<.GO.$/,/^GO$/p' "$root/hooks/bench/hookbench.sh" | sed '1d;$d' >"$work/stdhook/main.go"
(cd "$work/stdhook" && printf 'module stdhook\n\ngo 1.22\n' >go.mod && CGO_ENABLED=0 go build -o "$work/stdhookbin" .)
printf 'package main\n\nfunc main() {}\n' >"$work/empty.go"
(cd "$root" && CGO_ENABLED=0 go build -o "$work/goempty" "$work/empty.go" && CGO_ENABLED=0 go build -o "$work/sepad-hook" ./cmd/sepad-hook)
out=$(awk 'BEGIN { for (i = 0; i < 40; i++) printf "ok  \\tgithub.com/acme/shop/pkg%02d\\t0.%03ds\\n", i, i * 7 }')
printf '{"session_id":"9a1f0c3e-5b7d-4e2a-8c61-2f3d4e5a6b7c","transcript_path":"/home/ana/.claude/projects/-home-ana-src-shop/9a1f0c3e.jsonl","cwd":"%s","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run the tests"},"tool_response":{"stdout":"%s","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_01ABCDEF","duration_ms":2300}\n' "$work" "$out" >"$work/payload.json"
echo "== machine: $(uname -srm); $(go version); $(valgrind --version)"
count() { # binary: median instructions of RUNS calls
	i=0
	while [ $i -lt "$runs" ]; do
		mkdir -p "$work/h"
		# Async preemption signals trip callgrind; the hook never needs them.
		SPOOLDIR="$work/h" GODEBUG=asyncpreemptoff=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$work/$1" hook --home "$work/h" <"$work/payload.json" 2>&1 |
			sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
		i=$((i + 1))
	done | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
e=$(count goempty) s=$(count stdhookbin) h=$(count sepad-hook)
awk -v e="$e" -v s="$s" -v h="$h" 'BEGIN {
	printf "  empty Go program                 %9d instructions\n", e
	printf "  standard-library hook            %9d instructions\n", s
	printf "  sepad-hook                       %9d instructions\n", h
	printf "  sepad-hook / standard-library hook: %.2f (budget 1.25)\n", h / s
}'
