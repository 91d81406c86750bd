package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sepad/sepad/config"
)

func TestConfigInitAndShow(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sepa", "config.yaml")
	code, out, errOut := runCmd(t, "config", "init", path)
	if code != 0 || !strings.Contains(out, "wrote "+path) {
		t.Fatalf("init: exit %d %s %s", code, out, errOut)
	}
	// Commented out: the file loads to exactly the defaults.
	got, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := config.Load("")
	got.Source, want.Source = "", ""
	if fmt.Sprintf("%+v", got) != fmt.Sprintf("%+v", want) {
		t.Errorf("an initialised file changes the configuration:\n%+v\n%+v", got, want)
	}
	b, _ := os.ReadFile(path)
	if !strings.Contains(string(b), "\n#   min_samples: 3\n") {
		t.Errorf("settings not commented out:\n%s", b)
	}
	if code, _, errOut := runCmd(t, "config", "init", path); code != exitFail || !strings.Contains(errOut, "exists") {
		t.Errorf("init over a file: exit %d %s", code, errOut)
	}

	user := filepath.Join(dir, "mine.yaml")
	os.WriteFile(user, []byte("# mine\naggregate:\n  min_samples: 5\nskills:\n  deploy: complex\n"), 0o600)
	code, out, errOut = runCmd(t, "config", "show", "--config", user)
	if code != 0 {
		t.Fatalf("show: exit %d %s", code, errOut)
	}
	for _, w := range []string{"config file  " + user + " (from --config)", "aggregate.min_samples", "5", user + ":3",
		"aggregate.trim", "default", "{deploy: complex}", user + ":5"} {
		if !strings.Contains(out, w) {
			t.Errorf("show lacks %q:\n%s", w, out)
		}
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasSuffix(l, " ") {
			t.Errorf("trailing space: %q", l)
		}
	}
	// The session's base prompt is CLAUDE.md in show, however the file
	// names it (issue 36 item 9).
	os.WriteFile(user, []byte("skills:\n  _session: simple\n  deploy: complex\n"), 0o600)
	if code, out, errOut := runCmd(t, "config", "show", "--config", user); code != 0 || !strings.Contains(out, "{CLAUDE.md: simple, deploy: complex}") || strings.Contains(out, "_session") {
		t.Errorf("show of a _session entry: exit %d %s\n%s", code, errOut, out)
	}
	os.WriteFile(user, []byte("aggregate:\n  min_samples: many\n"), 0o600)
	if code, _, errOut := runCmd(t, "config", "show", "--config", user); code != exitFail || !strings.Contains(errOut, user) {
		t.Errorf("a bad file: exit %d %s", code, errOut)
	}
}

// TestConfigInitChangesNothing: the file `config init` writes holds the
// defaults commented out, so reading it changes no setting (a reload
// after it names none as applied or waiting for a restart).
func TestConfigInitChangesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.yaml")
	if _, err := config.Init(path, false); err != nil {
		t.Fatal(err)
	}
	def, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	got, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if ch := config.Changed(def, got); len(ch) != 0 {
		t.Fatalf("config init's file changes %q", ch)
	}
}
