package checks

import (
	"math"
	"sort"
	"strconv"
	"strings"
)

// Distance is the Levenshtein edit distance between a and b, counted in
// runes (insertions, deletions and substitutions each cost 1).
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) < len(rb) {
		ra, rb = rb, ra
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// Similarity is the normalised edit similarity 1 − distance / the longer
// length, in runes; two empty strings are identical (1).
func Similarity(a, b string) float64 {
	n := max(len([]rune(a)), len([]rune(b)))
	if n == 0 {
		return 1
	}
	return 1 - float64(Distance(a, b))/float64(n)
}

// FirstNumber returns the first number written in s: an optional sign,
// digits with an optional decimal part (or a leading point), an optional
// exponent. Thousands separators are not read ("1,234" is 1).
func FirstNumber(s string) (float64, bool) {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !isDigit(c) && !(c == '.' && i+1 < len(s) && isDigit(s[i+1])) {
			continue
		}
		start := i
		if start > 0 && (s[start-1] == '-' || s[start-1] == '+') {
			start--
		}
		j := i
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		}
		if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
			k := j + 1
			if k < len(s) && (s[k] == '+' || s[k] == '-') {
				k++
			}
			if k < len(s) && isDigit(s[k]) {
				for k < len(s) && isDigit(s[k]) {
					k++
				}
				j = k
			}
		}
		f, err := strconv.ParseFloat(strings.TrimSuffix(s[start:j], "."), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// ExtractJSON finds the JSON value of an output: the whole output (white
// space trimmed) when it is one JSON value, else the first fenced code
// block (``` or ~~~, any info string) whose content is. where says which.
func ExtractJSON(out string) (v any, where string, ok bool) {
	if v, ok := unmarshalJSON(strings.TrimSpace(out)); ok {
		return v, "the whole output", true
	}
	for _, b := range fencedBlocks(out) {
		if v, ok := unmarshalJSON(strings.TrimSpace(b)); ok {
			return v, "a fenced block", true
		}
	}
	return nil, "", false
}

// fencedBlocks returns the contents of the fenced code blocks of a
// markdown text, read line by line: a fence is three or more backticks or
// tildes at the start of a line (after up to three spaces), closed by a
// fence of the same character at least as long. An unclosed block runs to
// the end.
func fencedBlocks(s string) []string {
	var out []string
	lines := strings.Split(s, "\n")
	for i := 0; i < len(lines); i++ {
		ch, n := fence(lines[i])
		if n == 0 {
			continue
		}
		var body []string
		j := i + 1
		for ; j < len(lines); j++ {
			if c2, n2 := fence(lines[j]); c2 == ch && n2 >= n && strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(lines[j]), string(ch))) == "" {
				break
			}
			body = append(body, lines[j])
		}
		out = append(out, strings.Join(body, "\n"))
		i = j
	}
	return out
}

func fence(line string) (byte, int) {
	t := strings.TrimRight(line, "\r")
	ind := len(t) - len(strings.TrimLeft(t, " "))
	if ind > 3 {
		return 0, 0
	}
	t = t[ind:]
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return 0, 0
	}
	return t[0], n
}

// JSONSimilarity compares an expected JSON value with an actual one, in
// [0, 1]:
//   - objects: the mean over the union of their keys of the similarity of
//     the values, a key missing on either side counting 0 (two empty
//     objects: 1);
//   - arrays: the mean over the longer length of the similarity of the
//     elements at the same index, missing ones counting 0 (two empty: 1);
//   - strings: Similarity (normalised edit similarity);
//   - numbers: 1 − |a − b| / max(|a|, |b|), at least 0 (equal: 1);
//   - booleans and null: 1 when equal;
//   - values of different kinds: 0.
func JSONSimilarity(expected, actual any) float64 {
	switch e := expected.(type) {
	case map[string]any:
		a, ok := actual.(map[string]any)
		if !ok {
			return 0
		}
		keys := map[string]bool{}
		for k := range e {
			keys[k] = true
		}
		for k := range a {
			keys[k] = true
		}
		if len(keys) == 0 {
			return 1
		}
		// Sum in key order so the result does not depend on map order.
		ks := make([]string, 0, len(keys))
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		sum := 0.0
		for _, k := range ks {
			ev, eok := e[k]
			av, aok := a[k]
			if eok && aok {
				sum += JSONSimilarity(ev, av)
			}
		}
		return sum / float64(len(ks))
	case []any:
		a, ok := actual.([]any)
		if !ok {
			return 0
		}
		n := max(len(e), len(a))
		if n == 0 {
			return 1
		}
		sum := 0.0
		for i := 0; i < min(len(e), len(a)); i++ {
			sum += JSONSimilarity(e[i], a[i])
		}
		return sum / float64(n)
	case string:
		a, ok := actual.(string)
		if !ok {
			return 0
		}
		return Similarity(e, a)
	case float64:
		a, ok := actual.(float64)
		if !ok {
			return 0
		}
		if a == e {
			return 1
		}
		return clamp01(1 - math.Abs(a-e)/math.Max(math.Abs(a), math.Abs(e)))
	case bool:
		if a, ok := actual.(bool); ok && a == e {
			return 1
		}
		return 0
	case nil:
		if actual == nil {
			return 1
		}
		return 0
	}
	return 0
}
