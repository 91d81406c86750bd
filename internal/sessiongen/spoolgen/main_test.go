package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestTrickle appends n events under the spool lock, each a whole JSON
// line, and leaves the lock file beside the spool.
func TestTrickle(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "events.jsonl")
	if err := trickle(out, 250, 5000); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 250 || b[len(b)-1] != '\n' {
		t.Fatalf("%d lines, want 250", len(lines))
	}
	for i, l := range lines {
		var ev struct {
			Name string `json:"hook_event_name"`
		}
		if err := json.Unmarshal(l, &ev); err != nil || ev.Name == "" {
			t.Fatalf("line %d: %v: %.200s", i+1, err, l)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "spool.lock")); err != nil {
		t.Errorf("no lock file: %v", err)
	}
}

// TestOptions: every seed's sessions use both skills, and two seeds differ.
func TestOptions(t *testing.T) {
	now := time.Now().UTC()
	a, b := options(1, now), options(2, now)
	if len(a.Skills) != 2 || a.Seed == b.Seed || !a.Interleave {
		t.Errorf("options: %+v", a)
	}
}
