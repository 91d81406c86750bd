package importer

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// MaxFile bounds the size of one log file Load reads.
const MaxFile = 512 << 20

// Report is what an import read, skipped, deduplicated and added.
type Report struct {
	Files []FileReport `json:"files"`
	// Read counts the payloads decoded; Events counts them by event.
	Read   int            `json:"read"`
	Events map[string]int `json:"events"`
	// Skipped lists what was not imported, with the reason.
	Skipped []Skip `json:"skipped"`
	// Duplicates counts payloads found twice in the files given;
	// AlreadyStored those the store already had (an earlier import), and
	// SpoolSessions those of sessions sepad's own hook recorded.
	Duplicates    int `json:"duplicates"`
	AlreadyStored int `json:"already_stored"`
	SpoolSessions int `json:"spool_sessions"`
	// Imported counts the payloads fed to the pipeline, Executions the
	// executions they made, and UnknownOutcome the tool calls among them
	// whose outcome the logs cannot tell (docs/import.md).
	Imported       int `json:"imported"`
	Executions     int `json:"executions"`
	UnknownOutcome int `json:"unknown_outcome"`
	// FailuresOnly counts the sessions whose log records tool failures
	// but no success: their executions with calls of unknown outcome get
	// no tool-success signal (rubric 4.2.0, docs/import.md).
	FailuresOnly int `json:"failures_only,omitempty"`
	// Collisions counts executions not stored because another holds their
	// ID (quarantined, see sepad quarantine).
	Collisions int `json:"collisions,omitempty"`
	// Foreign lists the projects (cwd) the logs name that are not
	// absolute paths on this system (a Windows log read on Linux): their
	// executions are imported under that name, and the project is
	// neither watched nor written (never resolved against a working
	// directory).
	Foreign []string `json:"foreign,omitempty"`
}

// Add folds done, the pipeline's report on the records read into r, into
// r: what the store already had, what was added, and what it skipped.
func (r *Report) Add(done *Report) {
	r.AlreadyStored, r.SpoolSessions, r.Imported = done.AlreadyStored, done.SpoolSessions, done.Imported
	r.Executions, r.UnknownOutcome, r.Collisions = done.Executions, done.UnknownOutcome, done.Collisions
	r.Skipped = append(r.Skipped, done.Skipped...)
}

// Expand lists the log files of paths: a file as given, a directory's
// *.json, *.jsonl and *.log files (not its subdirectories), sorted.
func Expand(paths []string) ([]string, error) {
	var out []string
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		if !fi.IsDir() {
			out = append(out, p)
			continue
		}
		ents, err := os.ReadDir(p)
		if err != nil {
			return nil, fmt.Errorf("import %s: %w", p, err)
		}
		var names []string
		for _, e := range ents {
			n := strings.ToLower(e.Name())
			if e.Type().IsRegular() && (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl") || strings.HasSuffix(n, ".log")) {
				names = append(names, filepath.Join(p, e.Name()))
			}
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w in %s", ErrNoLogs, strings.Join(paths, ", "))
	}
	return out, nil
}

// Load reads the log files of paths (Expand) and prepares their records
// (Prepare). The report holds what was read and skipped.
func Load(paths []string) ([]Record, Report, error) {
	rep := Report{Events: map[string]int{}}
	files, err := Expand(paths)
	if err != nil {
		return nil, rep, err
	}
	var all []Record
	for _, f := range files {
		fi, err := os.Stat(f)
		if err != nil {
			return nil, rep, fmt.Errorf("import %s: %w", f, err)
		}
		if fi.Size() > MaxFile {
			rep.Skipped = append(rep.Skipped, Skip{File: f, Reason: fmt.Sprintf("file of %d bytes is over the %d MiB limit", fi.Size(), MaxFile>>20)})
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, rep, fmt.Errorf("import %s: %w", f, err)
		}
		recs, skips, fr := DecodeFile(f, data)
		rep.Files = append(rep.Files, fr)
		rep.Skipped = append(rep.Skipped, skips...)
		all = append(all, recs...)
	}
	rep.Read = len(all)
	foreign := map[string]bool{}
	for _, r := range all {
		rep.Events[r.Event]++
		var p struct {
			Cwd string `json:"cwd"`
		}
		if json.Unmarshal(r.Payload, &p) == nil && p.Cwd != "" && !filepath.IsAbs(p.Cwd) && !foreign[p.Cwd] {
			foreign[p.Cwd] = true
			rep.Foreign = append(rep.Foreign, p.Cwd)
		}
	}
	all, rep.Duplicates = Prepare(all)
	rep.FailuresOnly = len(FailuresOnly(all))
	return all, rep, nil
}

// WriteRecords writes records as JSON lines (the body of POST /v1/import).
func WriteRecords(w io.Writer, recs []Record) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return err
		}
	}
	return nil
}

// ReadRecords reads what WriteRecords wrote. An unusable line is an
// error naming it.
func ReadRecords(r io.Reader) ([]Record, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var out []Record
	n := 0
	for sc.Scan() {
		n++
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("record %d: %w", n, err)
		}
		if rec.Session == "" || rec.Event == "" || len(rec.Payload) == 0 || rec.Key == "" {
			return nil, fmt.Errorf("record %d: session, event, payload and key are required", n)
		}
		out = append(out, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("record %d: %w", n+1, err)
	}
	return out, nil
}

// Unknown returns the sessions and tool_use_ids of the records whose
// outcome is unknown, as session + "\x00" + tool_use_id.
func Unknown(recs []Record) map[string]bool {
	m := map[string]bool{}
	for _, r := range recs {
		if r.Unknown {
			m[r.Session+"\x00"+r.ToolUseID] = true
		}
	}
	return m
}

// FailuresOnly returns the sessions whose log records tool failures but
// no success (Record.FailuresOnly): their calls of known outcome are
// failures alone.
func FailuresOnly(recs []Record) map[string]bool {
	m := map[string]bool{}
	for _, r := range recs {
		if r.FailuresOnly {
			m[r.Session] = true
		}
	}
	return m
}
