package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportExportThroughDaemon: with the daemon running, sepad import
// goes through it (a second import adds nothing), explain shows a call of
// unknown outcome, the value and the integrity report, and sepad export
// streams from it; after the daemon stops the same export is read from
// the database directly and is the same.
func TestImportExportThroughDaemon(t *testing.T) {
	home := t.TempDir()
	env := []string{"SEPA_HOME=" + home, "SEPA_CONFIG=", "XDG_CONFIG_HOME=" + filepath.Join(home, "noconfig")}
	d := startDaemon(t, home)
	waitFor(t, "the daemon's socket", func() bool {
		_, err := os.Stat(filepath.Join(home, "sepad.sock"))
		return err == nil
	})
	logs := filepath.Join("..", "testdata", "import")
	args := []string{"import", filepath.Join(logs, "timestamped", "logs"), filepath.Join(logs, "pre-only", "logs"), "--json"}
	out, errOut, code := sepad(t, env, nil, args...)
	var rep struct {
		Imported       int `json:"imported"`
		Executions     int `json:"executions"`
		AlreadyStored  int `json:"already_stored"`
		UnknownOutcome int `json:"unknown_outcome"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Imported != 21 || rep.Executions != 3 || rep.UnknownOutcome != 4 {
		t.Fatalf("import: exit %d, %+v\n%s%s", code, rep, out, errOut)
	}
	out, _, _ = sepad(t, env, nil, args...)
	if json.Unmarshal([]byte(out), &rep) != nil || rep.Imported != 0 || rep.AlreadyStored != 21 {
		t.Fatalf("second import: %+v", rep)
	}
	live, errOut, code := sepad(t, env, nil, "export", "--format", "jsonl")
	if code != 0 || strings.Count(live, "\n") != 3 {
		t.Fatalf("export: exit %d, %d rows\n%s", code, strings.Count(live, "\n"), errOut)
	}
	var row struct {
		ID        string          `json:"id"`
		Prompt    string          `json:"prompt"`
		Unknown   int             `json:"unknown_outcome"`
		Value     json.RawMessage `json:"value"`
		Integrity json.RawMessage `json:"integrity"`
	}
	var healthz string
	for _, l := range strings.Split(strings.TrimSpace(live), "\n") {
		if err := json.Unmarshal([]byte(l), &row); err != nil {
			t.Fatal(err)
		}
		if row.Prompt == "add a /healthz endpoint" {
			healthz = row.ID
			if row.Unknown != 4 || string(row.Value) == "null" || string(row.Integrity) == "null" {
				t.Errorf("pre-only row: %s", l)
			}
		}
	}
	ex, _, code := sepad(t, env, nil, "explain", healthz)
	// "it builds and all tests pass" beside a go build and a go test whose
	// outcomes the log does not have: the claims cannot be checked, so
	// they are no over-claim, as the calls are no failures (docs/import.md,
	// docs/outcome.md).
	for _, want := range []string{"unknown", "value ", "integrity: no over-claim", "tests_pass not observed",
		"claimed the tests pass; cannot be checked: the only test run, call 3, go test, has no known outcome"} {
		if code != 0 || !strings.Contains(ex, want) {
			t.Errorf("explain: no %q in\n%s", want, ex)
		}
	}
	d.stop(t)
	direct, errOut, code := sepad(t, env, nil, "export", "--format", "jsonl")
	if code != 0 || direct != live {
		t.Errorf("export without the daemon differs (exit %d, %s)", code, errOut)
	}
	file := filepath.Join(t.TempDir(), "out.csv")
	if _, errOut, code := sepad(t, env, nil, "export", "--format", "csv", "-o", file); code != 0 {
		t.Fatalf("export -o: %s", errOut)
	}
	if b, err := os.ReadFile(file); err != nil || strings.Count(string(b), "\n") < 4 || !strings.HasPrefix(string(b), "schema,id,") {
		t.Errorf("csv file: %v\n%s", err, b)
	}
}

// TestImportFailuresOnlyExplain: a log that records failures but never a
// success (PostToolUseFailure, no PostToolUse) gives no tool-success rate,
// and explain says why in words: before rubric 4.2.0 its 2 logged failures
// read 0/2, an F-sized hole from a log that could not show a success.
func TestImportFailuresOnlyExplain(t *testing.T) {
	home := t.TempDir()
	env := []string{"SEPA_HOME=" + home, "SEPA_CONFIG=", "XDG_CONFIG_HOME=" + filepath.Join(home, "noconfig")}
	logs := filepath.Join("..", "testdata", "import", "failures-only", "logs")
	out, errOut, code := sepad(t, env, nil, "import", logs)
	if code != 0 || !strings.Contains(out, "1 session's log records failures only (no PostToolUse): tool success unknown there, not scored") {
		t.Fatalf("import: exit %d, no word of the log of failures alone\n%s%s", code, out, errOut)
	}
	rows, errOut, code := sepad(t, env, nil, "export", "--format", "jsonl")
	var row struct {
		ID string `json:"id"`
	}
	if code != 0 || strings.Count(rows, "\n") != 1 || json.Unmarshal([]byte(rows), &row) != nil {
		t.Fatalf("export: exit %d, want 1 row\n%s%s", code, rows, errOut)
	}
	ex, errOut, code := sepad(t, env, nil, "explain", row.ID)
	if code != 0 {
		t.Fatalf("explain: exit %d\n%s", code, errOut)
	}
	var line string
	for _, l := range strings.Split(ex, "\n") {
		if strings.Contains(l, "tool success rate") {
			line = l
		}
	}
	if !strings.Contains(line, "absent") || !strings.Contains(line, "the log records failures only: tool success unknown (2 failed calls, 6 of unknown outcome)") {
		t.Errorf("explain's tool_success_rate row: %q; want it absent with the reason in\n%s", line, ex)
	}
}
