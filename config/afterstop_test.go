package config

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// outcome.after_stop: off by default, per project by its directory, the
// command a list of words, every mistake located.
func TestAfterStop(t *testing.T) {
	base, err := Load("")
	if err != nil {
		t.Fatal(err)
	}
	if len(base.Outcome.AfterStop.Projects) != 0 || base.Outcome.AfterStop.Timeout != 2*time.Minute || base.Outcome.AfterStop.MaxOutput != 65536 {
		t.Fatalf("defaults: %+v", base.Outcome.AfterStop)
	}
	if dir, cmd := base.AfterStopFor("/srv/calc"); dir != "" || cmd != nil {
		t.Fatalf("off by default, got %q %q", dir, cmd)
	}
	home, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home directory")
	}
	c, err := Parse("user.yaml", []byte("outcome:\n  after_stop:\n    timeout: 30s\n    projects:\n      /srv/calc: [go, test, ./...]\n      /srv/calc/web: [npm, test]\n      ~/src/app: [make, check]\n"), base)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		project, dir string
		cmd          []string
	}{
		{"/srv/calc", "/srv/calc", []string{"go", "test", "./..."}},
		{"/srv/calc/pkg/", "/srv/calc", []string{"go", "test", "./..."}},
		{"/srv/calc/web/src", "/srv/calc/web", []string{"npm", "test"}},
		{"/srv/calculator", "", nil},
		{"srv/calc", "", nil},
		{filepath.Join(home, "src", "app"), filepath.Join(home, "src", "app"), []string{"make", "check"}},
	} {
		dir, cmd := c.AfterStopFor(tc.project)
		if dir != tc.dir || !slices.Equal(cmd, tc.cmd) {
			t.Errorf("AfterStopFor(%q) = %q %q, want %q %q", tc.project, dir, cmd, tc.dir, tc.cmd)
		}
	}
	if c.Outcome.AfterStop.Timeout != 30*time.Second || c.Outcome.AfterStop.MaxOutput != 65536 {
		t.Errorf("bounds: %+v", c.Outcome.AfterStop)
	}
	// A clone is deep: editing it leaves the original alone.
	cl := c.clone()
	cl.Outcome.AfterStop.Projects["/srv/calc"][0] = "rm"
	if c.Outcome.AfterStop.Projects["/srv/calc"][0] != "go" {
		t.Error("clone shares the command list")
	}
	for _, tc := range []struct {
		yaml, key string
		line      int
		msg       string
	}{
		{"outcome:\n  after_stop:\n    projects:\n      calc: [go, test]\n", "outcome.after_stop.projects.calc", 4, "not an absolute path"},
		{"outcome:\n  after_stop:\n    projects:\n      /: [go, test]\n", "outcome.after_stop.projects./", 4, "root of the file system"},
		{"outcome:\n  after_stop:\n    projects:\n      '~': [go, test]\n", "outcome.after_stop.projects.~", 4, "home directory"},
		{"outcome:\n  after_stop:\n    projects:\n      /srv/x.y: []\n", "outcome.after_stop.projects./srv/x.y", 4, "command is empty"},
		{"outcome:\n  after_stop:\n    projects:\n      /srv/x: ['', a]\n", "outcome.after_stop.projects./srv/x", 4, "command is empty"},
		{"outcome:\n  after_stop:\n    projects:\n      /srv/x: go test\n", "outcome.after_stop.projects./srv/x", 4, "list of strings"},
		{"outcome:\n  after_stop:\n    timeout: 0s\n", "outcome.after_stop.timeout", 3, "positive"},
		{"outcome:\n  after_stop:\n    max_output: 10\n", "outcome.after_stop.max_output", 3, "at least 1024"},
		{"outcome:\n  after_stop: [go, test]\n", "outcome.after_stop", 2, "mapping"},
		{"outcome:\n  after_stop:\n    comand: x\n", "outcome.after_stop.comand", 3, "unknown key"},
	} {
		_, err := Parse("user.yaml", []byte(tc.yaml), base)
		var ce *Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.Line != tc.line || !strings.Contains(ce.Msg, tc.msg) {
			t.Errorf("%q:\n  error %v\n  want user.yaml:%d: key %s: …%s…", tc.yaml, err, tc.line, tc.key, tc.msg)
		}
	}
}
