#!/bin/sh
# The evolve benchmark (issue 38; BENCHMARKS.md, "Evolve"): a skill with a
# planted flaw (it never runs `make test`, and `make deploy` refuses an
# untested build) evolved by a scripted mutator, its runs real Claude Code
# sessions against the fake model server; edit lists side by side with
# whole texts on the same script. About 40 sessions, four minutes.
# SEPAD_BENCH_OUT=FILE also writes the table to FILE.
set -e
cd "$(dirname "$0")/.."
SEPAD_BENCH_EVOLVE=1 SEPAD_CLAUDE_VERSIONS="${SEPAD_CLAUDE_VERSIONS:-2.1.328}" \
	exec go test -count=1 -timeout 30m -run '^TestEvolveLearning$' -v ./e2e/claudecode
