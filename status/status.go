// Package status is what `sepad status` and GET /v1/status show: the
// daemon, the database, the spool files and how far the daemon is behind
// them, the notices not shown yet and the candidates still under test;
// and the running binary's build (`sepad version`).
package status

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/spool"
	"github.com/sepad/sepad/store"
)

// SpoolFile is one file the daemon follows (or will).
type SpoolFile struct {
	File string `json:"file"`
	// Offset is the committed read position; Size the file's size now
	// (-1 when it no longer exists).
	Offset int64 `json:"offset"`
	Size   int64 `json:"size"`
	// LagBytes and LagEvents are what is written but not yet committed;
	// LagEvents counts lines in the first 64 KiB of the lag and is
	// extrapolated past it (LagEstimated), -1 when unreadable.
	LagBytes     int64 `json:"lag_bytes"`
	LagEvents    int64 `json:"lag_events"`
	LagEstimated bool  `json:"lag_estimated"`
}

// Daemon describes the running daemon (Running false when the CLI read
// the database itself).
type Daemon struct {
	Running bool      `json:"running"`
	PID     int       `json:"pid,omitempty"`
	Started time.Time `json:"started,omitzero"`
	Socket  string    `json:"socket,omitempty"`
	HTTP    string    `json:"http"` // "" without --http
	// Ingest is the running daemon's ingestion health (the collector's:
	// whether its commits succeed; while the file system holding the
	// database is full it holds the lines it read, reads no more, and
	// retries with backoff), filled by Get from IngestFunc.
	Ingest *collector.Health `json:"ingest,omitempty"`
	// IngestFunc, when set, reports whether the daemon's commits succeed.
	IngestFunc func() collector.Health `json:"-"`
	// Build is the daemon's binary (sepad version).
	Build *Build `json:"build,omitempty"`
	// Reload is what the daemon's last reload (SIGHUP, `sepad reload`)
	// did, filled by Get from ReloadFunc; nil before the first.
	Reload *Reload `json:"reload,omitempty"`
	// ReloadFunc, when set, returns the last reload (nil for none).
	ReloadFunc func() *Reload `json:"-"`
}

// Reload is the outcome of a configuration reload.
type Reload struct {
	// Seq counts the daemon's reloads from 1, so `sepad reload` can tell
	// the one it asked for from an earlier one.
	Seq  int       `json:"seq"`
	Time time.Time `json:"time"`
	// Config is the file read ("" for the built-in defaults).
	Config string `json:"config"`
	// Applied are the changed keys in force now; Restart those that take
	// effect when the daemon starts again.
	Applied []string `json:"applied"`
	Restart []string `json:"restart"`
	// Error is why the file was refused (the previous configuration is
	// kept).
	Error string `json:"error,omitempty"`
}

// Status is GET /v1/status and `sepad status`.
type Status struct {
	Daemon         Daemon           `json:"daemon"`
	Home           string           `json:"home"`
	Database       string           `json:"database"`
	DatabaseBytes  int64            `json:"database_bytes"`
	SchemaVersion  int              `json:"schema_version"`
	RubricVersion  string           `json:"rubric_version"`
	Skills         int              `json:"skills"`
	Executions     int64            `json:"executions"`
	OpenExecutions int              `json:"open_executions"`
	Quarantined    int64            `json:"quarantined"`
	QuarantineKept int              `json:"quarantine_kept"`
	Events         map[string]int64 `json:"events"`
	Spool          []SpoolFile      `json:"spool"`
	// LagBytes and LagEvents sum the spool files'.
	LagBytes     int64 `json:"lag_bytes"`
	LagEvents    int64 `json:"lag_events"`
	LagEstimated bool  `json:"lag_estimated"`
	// Notices are the notices not shown yet, each shown once at the start
	// of the next Claude Code session in its project (notices.go).
	Notices []NoticeRow `json:"notices"`
	// Undecided lists the candidates still under test, with the runs
	// each needs (pending.go).
	Undecided []query.PendingRow `json:"undecided"`
}

// Get summarises the database and the spool files of home. db may
// be nil when no database exists yet.
func Get(db *store.DB, home string, d Daemon) (*Status, error) {
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
	var offs []record.Offset
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
	if st.Undecided, err = query.PendingCandidates(db); err != nil {
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
