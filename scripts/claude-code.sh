#!/usr/bin/env bash
# Installs a pinned Claude Code CLI into a cache directory and prints the
# path of its executable. The real-client suite (e2e/claudecode) uses it:
#
#   scripts/claude-code.sh 2.1.328        # -> .../2.1.328/node_modules/.bin/claude
#
# The cache is $SEPAD_CLAUDE_CACHE, else $XDG_CACHE_HOME/sepad/claude-code,
# else ~/.cache/sepad/claude-code. Installing twice is a no-op. The version is
# always pinned: with Node 20 an unpinned install picks 2.1.197.
set -euo pipefail
version=${1:?usage: scripts/claude-code.sh VERSION}
cache=${SEPAD_CLAUDE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sepad/claude-code}
dir=$cache/$version
bin=$dir/node_modules/.bin/claude
if [ -x "$bin" ] && "$bin" --version >/dev/null 2>&1; then
  echo "$bin"; exit 0
fi
command -v npm >/dev/null || { echo "claude-code.sh: npm not found (install Node.js and npm)" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"name":"sepad-claude-code-cache","private":true}' > package.json
npm install --no-audit --no-fund --loglevel=error "@anthropic-ai/claude-code@$version" >&2
"$bin" --version >&2
echo "$bin"
