package query

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// ListSessions returns the most recently active sessions first.
func ListSessions(db *store.DB, limit int) (*Sessions, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	ss, err := db.RecentSessions(limit)
	if err != nil {
		return nil, err
	}
	out := &Sessions{Limit: limit, Sessions: make([]Session, 0, len(ss))}
	for _, s := range ss {
		sk := s.Skills
		if sk == nil {
			sk = []string{}
		}
		out.Sessions = append(out.Sessions, Session{ID: s.ID, Project: s.Project, First: timePtr(s.First), Last: timePtr(s.Last),
			Executions: s.Executions, Skills: sk})
	}
	return out, nil
}

// ListQuarantine returns the newest quarantined lines first.
func ListQuarantine(db *store.DB, limit int) (*Quarantine, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	st, err := db.Stats()
	if err != nil {
		return nil, err
	}
	qs, err := db.QuarantineNewest(limit)
	if err != nil {
		return nil, err
	}
	out := &Quarantine{Total: st.Quarantined, Kept: st.QuarantineKept, Limit: limit, Lines: make([]QuarantineLine, 0, len(qs))}
	for _, q := range qs {
		out.Lines = append(out.Lines, QuarantineLine{Seq: q.Seq, File: q.File, Offset: q.Offset, Reason: q.Reason,
			Time: q.Time.UTC(), Head: head(q.Raw, HeadBytes), Bytes: len(q.Raw)})
	}
	return out, nil
}

// head returns at most n bytes of b as text, cut at a rune boundary,
// invalid UTF-8 replaced.
func head(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
		for len(b) > 0 && !utf8.Valid(b) && len(b) > n-utf8.UTFMax {
			b = b[:len(b)-1]
		}
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

// ListDecisions returns decisions newest first, of the skills arg names
// ("" for all).
func ListDecisions(db *store.DB, arg string, limit int) (*Decisions, error) {
	if limit <= 0 {
		limit = DefaultLimit
	}
	keys := []string{""}
	if arg != "" {
		ss, err := resolveAll(db, arg)
		if err != nil {
			return nil, err
		}
		keys = keys[:0]
		for _, s := range ss {
			keys = append(keys, s.Key)
		}
	}
	out := &Decisions{Limit: limit, Decisions: []Decision{}}
	versions := map[string][]record.Version{}
	projects := map[string]string{}
	for _, k := range keys {
		ds, err := db.Decisions(k, limit)
		if err != nil {
			return nil, err
		}
		for _, d := range ds {
			var p any
			if json.Unmarshal(d.Payload, &p) != nil {
				p = string(d.Payload)
			}
			if _, ok := versions[d.SkillKey]; !ok {
				vs, err := db.Versions(d.SkillKey)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					return nil, fmt.Errorf("versions of %s: %w", d.SkillKey, err)
				}
				versions[d.SkillKey] = vs
				if sk, err := db.Skill(d.SkillKey); err == nil {
					projects[d.SkillKey] = sk.Project
				}
			}
			out.Decisions = append(out.Decisions, Decision{SkillKey: d.SkillKey, Project: projects[d.SkillKey], Seq: d.Seq, Time: d.Time.UTC(), Payload: p,
				Cost: decisionCost(versions[d.SkillKey], d.Payload)})
		}
	}
	sort.SliceStable(out.Decisions, func(i, j int) bool { return out.Decisions[i].Seq > out.Decisions[j].Seq })
	if len(out.Decisions) > limit {
		out.Decisions = out.Decisions[:limit]
	}
	return out, nil
}
