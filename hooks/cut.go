package hooks

import (
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Cuts (docs/events.md, "Cuts"): a value whose JSON text is longer than
// MaxField keeps its head and tail, and sepa.cut records where it was, its
// length and its sha256.

// CutMarker is put between the head and the tail of a cut string.
const CutMarker = "…[cut by sepad, see sepa.cut]…"

// cutRec is one record of sepa.cut.
type cutRec struct {
	Field  string `json:"field"`
	Len    int64  `json:"len"`
	SHA256 string `json:"sha256"`
}

// cutString cuts the string s just written at out[start:].
func (w *walker) cutString(start int, s string) {
	h := sha256.New()
	io.WriteString(h, s)
	w.cuts = append(w.cuts, cutRec{w.pointer(), int64(len(s)), hex.EncodeToString(h.Sum(nil))})
	w.out = appendJSON(w.out[:start], shorten(s, w.max))
}

// cutNumber cuts the number just written at out[start:]: it becomes a
// cut string.
func (w *walker) cutNumber(start int) {
	n := w.out[start:]
	w.cuts = append(w.cuts, cutRec{w.pointer(), int64(len(n)), sum256(n)})
	w.out = appendJSON(w.out[:start], shorten(string(n), w.max))
}

// shorten returns the head and the tail of s around CutMarker, as much of
// them as fits in limit bytes of JSON text (as appendJSON writes it),
// never splitting a UTF-8 sequence. When all of s fits besides the marker
// (a payload only partly read), it returns s and the marker.
func shorten(s string, limit int) string {
	budget := max(limit-2-len(CutMarker), 0) // bytes of JSON text for head and tail
	if len(s) <= budget && len(appendJSON(nil, s)) <= budget+2 {
		return s + CutMarker
	}
	n := min(budget, len(s)) / 2 // bytes of s kept at each end
	for {
		head := s[:runeStart(s, n)]
		tail := s[runeStart(s, len(s)-n):]
		cut := head + CutMarker + tail
		size := len(appendJSON(nil, cut))
		if size <= limit || n == 0 {
			return cut
		}
		// Escapes took more room than the bytes they stand for: keep
		// fewer bytes, in proportion.
		n = min(n-1, n*budget/(size-2-len(CutMarker)))
	}
}

// runeStart returns the start of the UTF-8 sequence holding s[i], or i
// when s[i] is not in a valid one (len(s) for i >= len(s)).
func runeStart(s string, i int) int {
	if i >= len(s) {
		return len(s)
	}
	for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}

// cutContainer cuts the array or object just written at out[start:] (in
// is its JSON text as received, elems where its elements are in out):
// the first elements within MaxField/2 bytes and the last ones within
// MaxField/2 bytes stay, and at least the first and the last.
func (w *walker) cutContainer(start int, in []byte, elems []elem) {
	field := w.pointer()
	w.cuts = append(w.cuts, cutRec{field, int64(len(in)), sum256(in)})
	head, tail := keepEnds(elems, w.max)
	end := w.out[len(w.out)-1] // '}' or ']'
	n := elems[head-1].end
	if tail < len(elems) {
		w.out[n] = ','
		n++
		n += copy(w.out[n:], w.out[elems[tail].start:elems[len(elems)-1].end])
	}
	w.out = append(w.out[:n], end)
	w.fixCuts(field, end == '}', elems, head, tail)
}

// keepEnds chooses the elements a cut container keeps: the first ones
// within max/2 bytes and the last ones within max/2 bytes, and at least
// the first and the last element. Elements [head, tail) are dropped.
func keepEnds(elems []elem, max int) (head, tail int) {
	half := max / 2
	size := 0
	for head < len(elems) && (head == 0 || size+elems[head].end-elems[head].start+1 <= half) {
		size += elems[head].end - elems[head].start + 1
		head++
	}
	tail, size = len(elems), 0
	for tail > head && (tail == len(elems) || size+elems[tail-1].end-elems[tail-1].start+1 <= half) {
		size += elems[tail-1].end - elems[tail-1].start + 1
		tail--
	}
	return head, tail
}

// fixCuts updates the records of values inside the container just cut at
// field: records inside dropped elements [head, tail) go (the
// container's own record covers them), and in an array the indexes of
// the elements after the dropped ones move down.
func (w *walker) fixCuts(field string, object bool, elems []elem, head, tail int) {
	dropped := map[string]bool{} // pointer segments of dropped members
	if object {
		for _, e := range elems[head:tail] {
			dropped[pointerSeg(e.key)] = true
		}
	}
	keep := w.cuts[:0]
	for _, c := range w.cuts {
		rest, inside := strings.CutPrefix(c.Field, field+"/")
		if !inside {
			keep = append(keep, c)
			continue
		}
		seg, after, deeper := strings.Cut(rest, "/")
		if object {
			if !dropped[seg] {
				keep = append(keep, c)
			}
			continue
		}
		idx, err := strconv.Atoi(seg)
		switch {
		case err != nil || idx >= head && idx < tail:
		case idx < head:
			keep = append(keep, c)
		default:
			c.Field = field + "/" + strconv.Itoa(idx-(tail-head))
			if deeper {
				c.Field += "/" + after
			}
			keep = append(keep, c)
		}
	}
	w.cuts = keep
}
