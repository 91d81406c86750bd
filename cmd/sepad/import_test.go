package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportTwice: sepad import with no daemon creates the database,
// imports the fixture logs, reports what it skipped, and adds nothing the
// second time; explain shows a call of unknown outcome.
func TestImportTwice(t *testing.T) {
	home := t.TempDir()
	runCmd := func(t *testing.T, args ...string) (int, string, string) {
		var o, e bytes.Buffer
		code := runMain(append(args, "--home", home), strings.NewReader(""), &o, &e)
		return code, o.String(), e.String()
	}
	logs := filepath.Join("..", "..", "testdata", "import")
	args := []string{"import", filepath.Join(logs, "pre-only", "logs"), filepath.Join(logs, "wrapped", "logs")}
	code, out, errOut := runCmd(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"imported 13 payloads into 2 executions", "5 tool calls of unknown outcome", "truncated array", "chat.json#1 and 1 more: no hook_event_name"} {
		if !strings.Contains(out, want) {
			t.Errorf("first import: no %q in\n%s", want, out)
		}
	}
	code, out, errOut = runCmd(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rep struct {
		Imported, Executions, AlreadyStored int
	}
	if err := json.Unmarshal([]byte(out), &struct {
		Imported      *int `json:"imported"`
		Executions    *int `json:"executions"`
		AlreadyStored *int `json:"already_stored"`
	}{&rep.Imported, &rep.Executions, &rep.AlreadyStored}); err != nil {
		t.Fatal(err)
	}
	if rep.Imported != 0 || rep.Executions != 0 || rep.AlreadyStored != 13 {
		t.Errorf("second import: %+v", rep)
	}
	code, out, _ = runCmd(t, "executions", "--json")
	if code != 0 || strings.Count(out, `"id"`) != 2 {
		t.Errorf("executions after two imports: %s", out)
	}
	if code, _, errOut := runCmd(t, "import", filepath.Join(t.TempDir())); code != exitUsage || !strings.Contains(errOut, "no log files") {
		t.Errorf("empty directory: exit %d, %s", code, errOut)
	}
}
