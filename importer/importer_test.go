package importer

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// TestLoadGolden reads each fixture directory of hooks-mastery-style logs
// (../testdata/import) and compares the report and the records with
// testdata/<name>.golden.json.
func TestLoadGolden(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/import/*")
	if len(dirs) < 5 {
		t.Fatalf("fixtures missing: %v", dirs)
	}
	for _, d := range dirs {
		name := filepath.Base(d)
		t.Run(name, func(t *testing.T) {
			p := d
			if fi, err := os.Stat(filepath.Join(d, "logs")); err == nil && fi.IsDir() {
				p = filepath.Join(d, "logs")
			}
			recs, rep, err := Load([]string{p})
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.MarshalIndent(struct {
				Report  Report   `json:"report"`
				Records []Record `json:"records"`
			}{rep, recs}, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			got = bytes.ReplaceAll(got, []byte(filepath.ToSlash(d)), []byte("DIR"))
			golden := filepath.Join("testdata", name+".golden.json")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (go test ./importer -update to accept):\n%s", name, got)
			}
		})
	}
}

// TestFailuresOnlyLog: a log that recorded PreToolUse and
// PostToolUseFailure but never PostToolUse proves nothing about the
// calls between its failures: they may have succeeded. Only the logged
// failures fail; the others are of unknown outcome.
func TestFailuresOnlyLog(t *testing.T) {
	recs, _, err := Load([]string{"../testdata/import/failures-only/logs"})
	if err != nil {
		t.Fatal(err)
	}
	var pre, unknown, failures int
	for _, r := range recs {
		if r.FailuresOnly != r.Unknown {
			t.Errorf("%s %s: unknown %v but failures_only %v: in a log of failures alone they go together", r.Event, r.ToolUseID, r.Unknown, r.FailuresOnly)
		}
		switch {
		case r.Event == "PreToolUse":
			pre++
			if r.Unknown {
				unknown++
			}
		case r.Event == "PostToolUseFailure":
			failures++
		}
	}
	if pre != 8 || failures != 2 || unknown != 6 {
		t.Fatalf("%d PreToolUse, %d failures logged, %d of unknown outcome; want 8, 2 and 6 (a failed call only where the log shows one)", pre, failures, unknown)
	}
	if s := FailuresOnly(recs); len(s) != 1 || !s["5e1f0a2b-cccc-4ddd-8eee-222222222222"] {
		t.Errorf("failures-only sessions %v, want the one session", s)
	}
}

// TestForeignProjects: a log from another system names projects that are
// no path here; the report lists them, so that they are recorded as
// foreign, never resolved against a working directory.
func TestForeignProjects(t *testing.T) {
	if filepath.IsAbs(`C:\Users\ana\shop`) {
		t.Skip("a Windows path is a path here")
	}
	f := filepath.Join(t.TempDir(), "hooks.jsonl")
	os.WriteFile(f, []byte(`{"session_id":"a","hook_event_name":"Stop","cwd":"C:\\Users\\ana\\shop"}`+"\n"+
		`{"session_id":"b","hook_event_name":"Stop","cwd":"/home/dev/shop"}`+"\n"+
		`{"session_id":"c","hook_event_name":"Stop","cwd":"C:\\Users\\ana\\shop"}`+"\n"), 0o644)
	_, rep, err := Load([]string{f})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Foreign) != 1 || rep.Foreign[0] != `C:\Users\ana\shop` {
		t.Fatalf("foreign %q", rep.Foreign)
	}
}
