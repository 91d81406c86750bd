package fitness

import "strings"

// maxOutputPatterns caps how many error patterns in the final output count
// towards error_rate: one crash usually shows several (a traceback, an
// "Error:" line and a "ValueError:"), and the output alone should not be
// able to empty the error_rate component.
const maxOutputPatterns = 3

// pattern is one error pattern, matched against one line of prose (never
// against code blocks or code spans). docs/rubric.md lists each with
// examples that match and that do not; fitness tests check every one.
type pattern struct {
	name string
	// match gets the line with surrounding space trimmed, and the same line
	// lower-cased with typographic apostrophes made plain.
	match func(line, lower string) bool
}

// patterns is fixed at build time and never changed. The order is the order
// of ErrorPatterns' result.
var patterns = [...]pattern{
	{"traceback", func(l, _ string) bool { return strings.Contains(l, "Traceback (most recent call last)") }},
	{"panic", func(l, _ string) bool {
		return strings.HasPrefix(l, "panic: ") || strings.HasPrefix(l, "fatal error: ")
	}},
	{"error_line", func(l, _ string) bool {
		return hasAnyPrefix(l, "Error:", "ERROR:", "error:", "ERROR ", "[ERROR]", "error[E")
	}},
	{"exception", func(l, lo string) bool {
		return containsAny(lo, "exception in thread", "uncaught exception", "unhandled exception") || namedException(l)
	}},
	{"command_not_found", func(_, lo string) bool {
		return containsAny(lo, "command not found", "is not recognized as an internal or external command")
	}},
	{"permission_denied", func(_, lo string) bool { return containsAny(lo, "permission denied", "operation not permitted") }},
	{"fatal", func(l, _ string) bool { return hasAnyPrefix(l, "fatal:", "FATAL") }},
	{"segfault", func(l, lo string) bool {
		return strings.Contains(lo, "segmentation fault") || strings.Contains(l, "SIGSEGV")
	}},
	{"test_failure", func(l, _ string) bool {
		return l == "FAIL" || hasAnyPrefix(l, "--- FAIL", "FAIL\t", "FAILED ")
	}},
	{"gave_up", func(_, lo string) bool {
		return containsAny(lo, "i was unable to", "i wasn't able to", "i was not able to", "i couldn't",
			"i could not", "i'm unable to", "i am unable to", "i'm not able to", "i am not able to")
	}},
	{"still_failing", func(_, lo string) bool {
		return containsAny(lo, "still fail", "still broken", "still doesn't work", "still does not work", "still not working")
	}},
	{"failed_to", func(_, lo string) bool {
		return strings.HasPrefix(lo, "failed to ") || strings.Contains(lo, "i failed to ")
	}},
}

// ErrorPatterns returns the names of the distinct error patterns found in
// the lines of text, in pattern order; a pattern counts once however often
// it occurs. Score applies it to the prose of the final output only.
func ErrorPatterns(text string) []string {
	var seen [len(patterns)]bool
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		lower := strings.ToLower(strings.ReplaceAll(line, "\u2019", "'"))
		for i := range patterns {
			if !seen[i] && patterns[i].match(line, lower) {
				seen[i] = true
			}
		}
	}
	var hits []string
	for i := range patterns {
		if seen[i] {
			hits = append(hits, patterns[i].name)
		}
	}
	return hits
}

// namedException reports a word like "ValueError:" or
// "java.io.IOException:": an identifier ending in Error or Exception
// followed by a colon, the way runtimes print them. A bare "Error:" is
// error_line's business, and "catches ValueError" (no colon) is prose.
func namedException(line string) bool {
	for w := range strings.FieldsSeq(line) {
		w = strings.TrimLeft(w, "([{\"'")
		var base string
		switch {
		case strings.HasSuffix(w, "Exception:"):
			base = strings.TrimSuffix(w, "Exception:")
		case strings.HasSuffix(w, "Error:"):
			base = strings.TrimSuffix(w, "Error:")
		default:
			continue
		}
		if base == "" {
			continue
		}
		ok := true
		for _, r := range base {
			if !(r == '.' || r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
				ok = false
				break
			}
		}
		if last := base[len(base)-1]; ok && (last >= 'a' && last <= 'z' || last >= 'A' && last <= 'Z') {
			return true
		}
	}
	return false
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
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
