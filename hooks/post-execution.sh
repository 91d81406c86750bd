#!/bin/sh
# post-execution.sh: a Claude Code hook command that records the event for
# sepad, whether or not sepad is installed yet.
#
#   - $SEPAD set:           exec "$SEPAD" hook
#   - sepad-hook on PATH:   exec sepad-hook hook (the same hook in a binary
#                           that starts faster)
#   - sepad on PATH:        exec sepad hook
#   - otherwise:            append the payload, as one line (newlines
#                           stripped), to the spool under the same flock as
#                           `sepad hook` ($SEPA_HOME/spool.lock), waiting at
#                           most 1 s, else to the fallback file. The
#                           collector parses such raw lines or quarantines
#                           them.
#
# It always exits 0 and prints nothing: a logging hook must never disturb
# the session. State directory: $SEPA_HOME, else $XDG_STATE_HOME/sepa (if
# absolute), else ~/.local/state/sepa; see docs/events.md.

if [ -n "${SEPAD:-}" ]; then
	exec "$SEPAD" hook
fi
if command -v sepad-hook >/dev/null 2>&1; then
	exec sepad-hook hook
fi
if command -v sepad >/dev/null 2>&1; then
	exec sepad hook
fi

home=${SEPA_HOME:-}
if [ -z "$home" ]; then
	case ${XDG_STATE_HOME:-} in
	/*) home=$XDG_STATE_HOME/sepa ;;
	*) home=${HOME:-/tmp}/.local/state/sepa ;;
	esac
fi
umask 077
mkdir -p "$home" 2>/dev/null || exit 0
tmp=$(mktemp "$home/.payload.XXXXXX" 2>/dev/null) || exit 0
trap 'rm -f "$tmp"' EXIT HUP INT TERM

# Read the whole payload before taking the lock, so a slow writer never
# holds the spool.
tr -d '\r\n' >"$tmp" 2>/dev/null
[ -s "$tmp" ] || exit 0
printf '\n' >>"$tmp"

spool=$home/events.jsonl
if command -v flock >/dev/null 2>&1; then
	if flock -w 1 "$home/spool.lock" sh -c 'cat "$1" >>"$2"' sh "$tmp" "$spool" 2>/dev/null; then
		exit 0
	fi
	cat "$tmp" >>"$home/events.fallback.jsonl" 2>/dev/null &&
		printf '%s lock-timeout post-execution.sh\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >>"$home/fallback.log" 2>/dev/null
	exit 0
fi
# No flock(1) (stock macOS): append without the lock. One O_APPEND write
# per line up to cat's buffer size, so only very large lines can interleave.
cat "$tmp" >>"$spool" 2>/dev/null
exit 0
