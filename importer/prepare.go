package importer

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"sort"
	"strconv"
	"time"
)

// Prepare puts the records of every file in one order, pairs Pre and
// Post events that have no tool_use_id, marks the PreToolUse events whose
// outcome is unknown, sets every record's Key and drops the records whose
// key an earlier one holds (the same event in two files). It returns the
// records kept and the number dropped as duplicates (the same element of
// the same file read twice, or one tool call in two files).
//
// Order (docs/import.md): sessions by their first time (sessions without
// times after those with, by where they were first read); within a
// session, by time when every event of the session has one, else by the
// documented order of the files (session_start, user_prompt_submit,
// pre_tool_use, post_tool_use, ..., stop, session_end), then by place in
// the file. Ties keep the order the files were given in.
func Prepare(recs []Record) ([]Record, int) {
	type sess struct {
		first   time.Time
		at      int
		allTime bool
	}
	ss := map[string]*sess{}
	for i := range recs {
		r := &recs[i]
		s := ss[r.Session]
		if s == nil {
			s = &sess{at: i, allTime: true}
			ss[r.Session] = s
		}
		if r.Time.IsZero() {
			s.allTime = false
		} else if s.first.IsZero() || r.Time.Before(s.first) {
			s.first = r.Time
		}
	}
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := &recs[i], &recs[j]
		sa, sb := ss[a.Session], ss[b.Session]
		if sa != sb {
			switch {
			case sa.first.IsZero() != sb.first.IsZero():
				return !sa.first.IsZero()
			case !sa.first.Equal(sb.first):
				return sa.first.Before(sb.first)
			}
			return sa.at < sb.at
		}
		if sa.allTime && !a.Time.Equal(b.Time) {
			return a.Time.Before(b.Time)
		}
		if a.rank != b.rank {
			return a.rank < b.rank
		}
		if a.File != b.File {
			return false // stable: the order given
		}
		return a.Index < b.Index
	})
	pair(recs)
	markUnknown(recs)
	seen := map[string]bool{}
	out := recs[:0]
	dups := 0
	for _, r := range recs {
		r.Key = key(r)
		if seen[r.Key] {
			dups++
			continue
		}
		seen[r.Key] = true
		out = append(out, r)
	}
	return out, dups
}

func isPost(ev string) bool { return ev == "PostToolUse" || ev == "PostToolUseFailure" }

// pair gives a Pre and its Post without tool_use_id (old Claude Code) the
// same made-up id: each post event takes the earliest unpaired Pre of its
// session with the same tool name and input. The id depends only on the
// session, the tool, the input and how many such calls came before, so a
// second import of the same (or a grown) log gives the same ids.
func pair(recs []Record) {
	type open struct {
		idx []int
	}
	pending := map[string]*open{}
	count := map[string]int{}
	for i := range recs {
		r := &recs[i]
		if r.ToolUseID != "" || (r.Event != "PreToolUse" && !isPost(r.Event)) {
			continue
		}
		var p struct {
			Tool  string          `json:"tool_name"`
			Input json.RawMessage `json:"tool_input"`
		}
		_ = json.Unmarshal(r.Payload, &p)
		var c bytes.Buffer
		if json.Compact(&c, p.Input) != nil {
			c.Reset()
			c.Write(p.Input)
		}
		k := r.Session + "\x00" + p.Tool + "\x00" + c.String()
		if r.Event == "PreToolUse" {
			count[k]++
			r.ToolUseID = madeUpID(k, count[k])
			o := pending[k]
			if o == nil {
				o = &open{}
				pending[k] = o
			}
			o.idx = append(o.idx, i)
			continue
		}
		if o := pending[k]; o != nil && len(o.idx) > 0 {
			r.ToolUseID = recs[o.idx[0]].ToolUseID
			o.idx = o.idx[1:]
			continue
		}
		count[k]++ // a post event whose Pre the log lacks
		r.ToolUseID = madeUpID(k, count[k])
	}
}

func madeUpID(k string, n int) string {
	h := sha256.Sum256([]byte(k + "\x00" + strconv.Itoa(n)))
	return "import_" + hex.EncodeToString(h[:8])
}

// markUnknown marks the PreToolUse events without a post event whose
// outcome the log cannot tell. A missing post event means failure only
// where the log proves it records the post events of that stretch: within
// the span of its session's post events (their times, or their places in
// the order when the session has no times), in a session that recorded
// successes (PostToolUse) too. A log of failures alone
// (PostToolUseFailure, never PostToolUse) proves nothing about the calls
// between them: they may have succeeded unlogged. A Pre outside that
// span, or in a session without any PostToolUse, is of unknown outcome;
// inside it, a Pre without a post event failed, as in sepad's own spool.
// In a session of failures alone such a Pre is also FailuresOnly.
func markUnknown(recs []Record) {
	type span struct {
		first, last   time.Time
		firstI, lastI int
		successes     int // PostToolUse events: the proof that successes are logged
	}
	spans := map[string]*span{}
	answered := map[string]bool{}
	for i := range recs {
		r := &recs[i]
		if !isPost(r.Event) {
			continue
		}
		answered[r.Session+"\x00"+r.ToolUseID] = true
		s := spans[r.Session]
		if s == nil {
			s = &span{firstI: i}
			spans[r.Session] = s
		}
		if r.Event == "PostToolUse" {
			s.successes++
		}
		s.lastI = i
		if !r.Time.IsZero() {
			if s.first.IsZero() || r.Time.Before(s.first) {
				s.first = r.Time
			}
			if r.Time.After(s.last) {
				s.last = r.Time
			}
		}
	}
	for i := range recs {
		r := &recs[i]
		if r.Event != "PreToolUse" || r.ToolUseID == "" || answered[r.Session+"\x00"+r.ToolUseID] {
			continue
		}
		s := spans[r.Session]
		switch {
		case s == nil:
			r.Unknown = true
		case s.successes == 0:
			r.Unknown, r.FailuresOnly = true, true
		case !r.Time.IsZero() && !s.first.IsZero():
			r.Unknown = r.Time.Before(s.first) || r.Time.After(s.last)
		default:
			r.Unknown = i < s.firstI || i > s.lastI
		}
	}
}

// key is the record's identity for deduplication: session, event and
// tool_use_id (given or made up by pair); for an event without one, the
// hash of the payload and where it lies: the file's name (without its
// directory, so logs copied or read from elsewhere are the same file) and
// the element's index or line number. Events that are alike in every byte
// but lie elsewhere (a Stop per turn, with the same session, cwd and
// transcript) are different events; only the same element of the same
// file read again is a duplicate (issue 33 item 11).
func key(r Record) string {
	id := r.ToolUseID
	if id == "" || (r.Event != "PreToolUse" && !isPost(r.Event)) {
		h := sha256.Sum256(r.Payload)
		id = "h:" + hex.EncodeToString(h[:12]) + "@" + filepath.Base(r.File) + "#" + strconv.Itoa(r.Index)
	}
	h := sha256.Sum256([]byte(r.Session + "\x00" + r.Event + "\x00" + id))
	return hex.EncodeToString(h[:16])
}
