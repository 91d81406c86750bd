package store

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/sepad/sepad/event"
	"github.com/sepad/sepad/record"
)

// maxKeyPart bounds, in bytes, each part of a key that comes from an
// event: a session ID, an execution ID, a skill's key, name, path and
// version, a project, a rubric version, an event name, a followed file,
// a transcript, an open thread, an imported event. bbolt refuses a key
// over bolt.MaxKeySize (32 KiB) and fails the whole transaction, and the
// collector commits the same lines again after a restart: one such field
// would stop ingestion for good (issue 33). The parser already refuses
// identity fields over event.MaxIdentity (4 KiB); the store bounds every
// part again itself, whatever brought it here, and a key joins at most
// three parts (skill, version, rubric), so 10 KiB keeps every key under
// the limit while leaving any part the parser accepts unchanged (a
// thread is session/agent, up to 8 KiB + 1).
const maxKeyPart = 10 << 10

// boundPart returns s when it fits in maxKeyPart, else its head (cut at a
// character boundary) followed by "…sha256:" and the hex sha256 of the
// whole: the same s gives the same part, so every read and write that
// bounds it finds the same key, and two long values that differ anywhere
// get different parts. A bounded part is its own bound.
func boundPart(s string) string {
	if len(s) <= maxKeyPart {
		return s
	}
	sum := sha256.Sum256([]byte(s))
	tail := "…sha256:" + hex.EncodeToString(sum[:])
	n := maxKeyPart - len(tail)
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + tail
}

// bkey is boundPart as a key.
func bkey(s string) []byte { return []byte(boundPart(s)) }

// boundExecution bounds the fields of x that name its records (its ID,
// session, skill, project, prompt file and version), before anything of
// it is stored: the stored execution carries the bounded values, so
// every read that starts from it finds its records.
func boundExecution(s *record.Scored) {
	x := &s.Exec
	for _, f := range []*string{&x.ID, &x.SessionID, &x.Skill, &x.SkillPath, &x.Project, &x.SkillVersion, &x.AgentID} {
		*f = boundPart(*f)
	}
	s.Result.RubricVersion = boundPart(s.Result.RubricVersion)
}

// DefaultEventNames is the default bound on the unknown hook event names
// event_counts keeps apart: the metrics label's cap too.
const DefaultEventNames = 64

// OtherEvents is the name under which event_counts counts the events of
// the unknown names past the bound, and of names over maxEventName bytes.
const OtherEvents = "other"

// maxEventName bounds a name kept in event_counts: Claude Code's are
// under 25 bytes.
const maxEventName = 64

// knownEvents are the hook event names sepad understands: always counted
// under their own name.
var knownEvents = map[string]bool{
	event.PreToolUse: true, event.PostToolUse: true, event.PostToolUseFailure: true, event.PostToolBatch: true,
	event.UserPromptSubmit: true, event.UserPromptExpansion: true, event.Stop: true, event.StopFailure: true,
	event.SubagentStart: true, event.SubagentStop: true, event.SessionStart: true, event.SessionEnd: true,
	event.InstructionsLoaded: true, event.Legacy: true,
}

// putEventCounts adds counts to event_counts without letting payloads
// choose how many names it holds (a fuzz run kept 394, issue 33): a name
// already kept or one sepad understands counts under itself; an unknown
// name is kept while fewer than EventNames unknown names are; any other,
// and a name over maxEventName bytes, counts under OtherEvents. The
// totals stay exact. Names are taken in order, so a replayed batch keeps
// the same ones.
func (db *DB) putEventCounts(b *bolt.Bucket, counts map[string]int64) error {
	names := make([]string, 0, len(counts))
	for k := range counts {
		names = append(names, k)
	}
	sort.Strings(names)
	unknown := -1 // counted on first need
	for _, k := range names {
		key := []byte(k)
		switch {
		case len(k) > maxEventName || k == "":
			key = []byte(OtherEvents)
		case b.Get(key) != nil || knownEvents[k]:
		default:
			if unknown < 0 {
				unknown = 0
				if err := b.ForEach(func(k, _ []byte) error {
					if !knownEvents[string(k)] && string(k) != OtherEvents {
						unknown++
					}
					return nil
				}); err != nil {
					return err
				}
			}
			if unknown >= db.opts.EventNames {
				key = []byte(OtherEvents)
			} else {
				unknown++
			}
		}
		if err := b.Put(key, u64(getU64(b.Get(key))+uint64(counts[k]))); err != nil {
			return err
		}
	}
	return nil
}

func versionKey(skill, hash string) []byte { return []byte(skill + "\x00" + hash) }

func aggKey(skill, version, rubric string) []byte {
	return []byte(skill + "\x00" + version + "\x00" + rubric)
}

func versionIndexKey(skill, version string, seq uint64) []byte {
	k := []byte(skill + "\x00" + version + "\x00")
	return append(k, u64(^seq)...)
}

func u64(n uint64) []byte {
	b := make([]byte, 8)
	binary.BigEndian.PutUint64(b, n)
	return b
}

func getU64(b []byte) uint64 {
	if len(b) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(b)
}

func putJSON(b *bolt.Bucket, k []byte, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %q: %w", k, err)
	}
	return b.Put(k, data)
}

func getSkill(tx *bolt.Tx, key string) (*record.Skill, error) {
	v := tx.Bucket(bSkills).Get([]byte(key))
	if v == nil {
		return nil, nil
	}
	var s record.Skill
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, fmt.Errorf("decode skill %q: %w", key, err)
	}
	return &s, nil
}

func putSkill(tx *bolt.Tx, s *record.Skill) error {
	c := *s
	c.Versions, c.State = nil, nil
	return putJSON(tx.Bucket(bSkills), []byte(s.Key), c)
}
