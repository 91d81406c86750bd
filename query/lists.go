package query

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/spool"
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
	versions := map[string][]store.Version{}
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
			}
			out.Decisions = append(out.Decisions, Decision{SkillKey: d.SkillKey, Seq: d.Seq, Time: d.Time.UTC(), Payload: p,
				Cost: decisionCost(versions[d.SkillKey], d.Payload)})
		}
	}
	sort.SliceStable(out.Decisions, func(i, j int) bool { return out.Decisions[i].Seq > out.Decisions[j].Seq })
	if len(out.Decisions) > limit {
		out.Decisions = out.Decisions[:limit]
	}
	return out, nil
}

// GetStatus summarises the database and the spool files of home. db may
// be nil when no database exists yet.
func GetStatus(db *store.DB, home string, d Daemon) (*Status, error) {
	st := &Status{Daemon: d, Home: home, Database: filepath.Join(home, "sepa.db"), SchemaVersion: store.SchemaVersion,
		RubricVersion: fitness.RubricVersion, Events: map[string]int64{}, Spool: []SpoolFile{}, Notices: pendingNotices(home)}
	if db != nil {
		st.RubricVersion = db.Rubric()
	}
	if d.IngestFunc != nil {
		in := d.IngestFunc()
		st.Daemon.Ingest = &in
	}
	if d.ReloadFunc != nil {
		st.Daemon.Reload = d.ReloadFunc()
	}
	var offs []store.Offset
	if db != nil {
		s, err := db.Stats()
		if err != nil {
			return nil, err
		}
		st.Database, st.DatabaseBytes = db.Path(), s.Size
		st.Skills, st.Executions, st.OpenExecutions = s.Skills, s.Executions, s.Open
		st.Quarantined, st.QuarantineKept = s.Quarantined, s.QuarantineKept
		for k, v := range s.Events {
			st.Events[k] = v
		}
		if offs, err = db.Offsets(); err != nil {
			return nil, err
		}
	}
	seen := map[string]bool{}
	for _, o := range offs {
		seen[o.File] = true
		st.Spool = append(st.Spool, spoolFile(o.File, o.Offset))
	}
	// Files the daemon has not read yet: the spool, the fallback files and
	// rotated segments.
	sp := spool.Path(home)
	segs, _ := filepath.Glob(sp + ".*")
	unread := append([]string{sp, spool.FallbackPath(home)}, segs...)
	for _, fb := range spool.RuntimeFallbackPaths(home) {
		more, _ := filepath.Glob(fb + ".*")
		unread = append(append(unread, fb), more...)
	}
	for _, p := range unread {
		if seen[p] || strings.HasSuffix(p, ".tmp") || strings.HasSuffix(p, ".gz") {
			continue
		}
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			seen[p] = true
			st.Spool = append(st.Spool, spoolFile(p, 0))
		}
	}
	var err error
	if st.Undecided, err = pendingCandidates(db); err != nil {
		return nil, err
	}
	sort.Slice(st.Spool, func(i, j int) bool { return st.Spool[i].File < st.Spool[j].File })
	for _, f := range st.Spool {
		st.LagBytes += f.LagBytes
		st.LagEvents += max(f.LagEvents, 0)
		st.LagEstimated = st.LagEstimated || f.LagEstimated
	}
	return st, nil
}

// maxLagScan bounds the bytes of lag read to count lines (status is asked
// often, while the lag may be large); past it the count is extrapolated
// from the lines in what was read.
const maxLagScan = 64 << 10

// spoolFile measures one followed file: its size and the lines after the
// committed offset.
func spoolFile(path string, off int64) SpoolFile {
	sf := SpoolFile{File: path, Offset: off, Size: -1}
	f, err := os.Open(path)
	if err != nil {
		return sf
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return sf
	}
	sf.Size = fi.Size()
	if sf.Size <= off {
		return sf // caught up (or truncated: the daemon rereads it)
	}
	sf.LagBytes = sf.Size - off
	buf := make([]byte, min(sf.LagBytes, maxLagScan))
	n, err := f.ReadAt(buf, off)
	if err != nil && !errors.Is(err, io.EOF) {
		sf.LagEvents = -1
		return sf
	}
	lines := int64(bytes.Count(buf[:n], []byte{'\n'}))
	if int64(n) < sf.LagBytes && n > 0 {
		lines = lines * sf.LagBytes / int64(n)
		sf.LagEstimated = true
	}
	sf.LagEvents = lines
	return sf
}
