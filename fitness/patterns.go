package fitness

import "strings"

// pattern is one error pattern of the error_rate and accuracy signals. Each
// is documented with examples in docs/rubric.md.
type pattern struct {
	name string
	// match reports a hit in one line of text.
	match func(line, lower string) bool
}

// patterns are matched line by line against the prose of the final output
// (code blocks excluded: code that handles errors is not an error).
var patterns = []pattern{
	{"traceback", func(l, _ string) bool { return strings.Contains(l, "Traceback (most recent call last)") }},
	{"panic", func(l, _ string) bool { return strings.HasPrefix(strings.TrimSpace(l), "panic: ") }},
	{"error_line", func(l, _ string) bool {
		t := strings.TrimSpace(l)
		return strings.HasPrefix(t, "Error:") || strings.HasPrefix(t, "ERROR:") || strings.HasPrefix(t, "error:") || strings.HasPrefix(t, "ERROR ")
	}},
	{"exception", func(l, lo string) bool {
		return strings.Contains(l, "Exception:") || strings.Contains(lo, "exception in thread") ||
			(strings.Contains(l, "Error:") && namedError(l)) ||
			(strings.Contains(l, "Exception") && namedException(l) && !containsAny(lo, "catch", "handl", "throws", "rescue"))
	}},
	{"command_not_found", func(_, lo string) bool { return strings.Contains(lo, "command not found") }},
	{"permission_denied", func(_, lo string) bool { return strings.Contains(lo, "permission denied") }},
	{"fatal", func(l, _ string) bool { return strings.HasPrefix(strings.TrimSpace(l), "fatal:") }},
	{"segfault", func(_, lo string) bool { return strings.Contains(lo, "segmentation fault") }},
	{"test_fail", func(l, _ string) bool {
		t := strings.TrimSpace(l)
		return strings.HasPrefix(t, "--- FAIL") || strings.HasPrefix(t, "FAIL\t") || strings.HasPrefix(t, "FAILED ")
	}},
	{"gave_up", func(_, lo string) bool {
		for _, p := range []string{"i was unable to", "i wasn't able to", "i was not able to", "i couldn't", "i could not", "i'm unable to", "i am unable to", "i can't complete", "i cannot complete"} {
			if strings.Contains(lo, p) {
				return true
			}
		}
		return false
	}},
	{"failed_to", func(_, lo string) bool {
		return strings.Contains(lo, "failed to ") && !strings.Contains(lo, "no longer failed to") && !strings.Contains(lo, "never failed to")
	}},
}

// ErrorPatterns returns the names of the distinct error patterns found in
// text, in pattern order. Each pattern counts once however often it occurs.
func ErrorPatterns(text string) []string {
	var hits []string
	seen := make([]bool, len(patterns))
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			continue
		}
		lower := strings.ToLower(strings.ReplaceAll(line, "\u2019", "'")) // I couldn’t = I couldn't
		for i, p := range patterns {
			if !seen[i] && p.match(line, lower) {
				seen[i] = true
			}
		}
	}
	for i, p := range patterns {
		if seen[i] {
			hits = append(hits, p.name)
		}
	}
	return hits
}

// softFailure reports a tool call that Claude Code recorded as a success
// but whose output shows a hard error (a crash, a missing command, a
// refused permission). Such a call stays a success for tool_success_rate
// and counts once as an error.
func softFailure(resp string) bool {
	for _, h := range ErrorPatterns(resp) {
		switch h {
		case "traceback", "panic", "command_not_found", "permission_denied", "segfault", "fatal":
			return true
		}
	}
	return false
}

// namedException reports a word like NullPointerException: longer than
// "Exception", ending with it, starting with a capital letter. A line that
// talks about catching or handling it is prose about error handling, which
// the caller excludes.
func namedException(line string) bool {
	for _, w := range strings.Fields(line) {
		w = strings.Trim(w, ".,:;()`'\"")
		if len(w) > len("Exception") && strings.HasSuffix(w, "Exception") && w[0] >= 'A' && w[0] <= 'Z' {
			return true
		}
	}
	return false
}

// namedError reports a runtime's error line such as "ValueError: bad" or
// "TypeError: x is undefined": an identifier ending in "Error" directly
// followed by a colon. A bare "Error:" is error_line's; "catches ValueError"
// without the colon is prose.
func namedError(line string) bool {
	for _, w := range strings.Fields(line) {
		w = strings.TrimLeft(w, "([{\"'`")
		base, ok := strings.CutSuffix(w, "Error:")
		if !ok || base == "" {
			continue
		}
		valid := true
		for _, r := range base {
			if !(r == '.' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				valid = false
				break
			}
		}
		if last := base[len(base)-1]; valid && (last >= 'a' && last <= 'z' || last >= 'A' && last <= 'Z') {
			return true
		}
	}
	return false
}

func containsAny(s string, subs ...string) bool {
	for _, p := range subs {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}
