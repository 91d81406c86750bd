package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/spool"
)

// TestRetentionAtStart: a daemon started with collector.retention removes
// the executions that ran and were stored longer ago than that, and the
// grades stay as they were; what it records afterwards is kept.
func TestRetentionAtStart(t *testing.T) {
	skipLong(t)
	home := shortTempDir(t)
	now := time.Now().UTC()
	skill := sessiongen.Skill{Name: "deploy", Path: shopDeploy, Version: "aaaaaaaaaaaa", Quality: 0.8}
	writeSpool(t, home, sessiongen.Generate(sessiongen.Options{Seed: 7, Sessions: 8, Project: shopProject, Start: now.Add(-72 * time.Hour), Skills: []sessiongen.Skill{skill}}))
	// startDaemon points XDG_CONFIG_HOME at home/noconfig: the config
	// file there is the daemon's (and the CLI's, with queryEnv).
	cfg := filepath.Join(home, "noconfig", "sepa", "config.yaml")
	writeFile(t, cfg, "collector:\n  retention: 0s\n")
	d := startDaemon(t, home)
	all := waitCaughtUp(t, home, 0)
	grades := func() string {
		out, errOut, code := sepad(t, queryEnv(home), nil, "grades", "--json", "--home", home)
		if code != 0 {
			t.Fatalf("grades: %d %s", code, errOut)
		}
		return out
	}
	before := grades()
	d.stop(t)

	time.Sleep(1500 * time.Millisecond) // stored more than a second ago
	writeFile(t, cfg, "collector:\n  retention: 1s\n")
	d = startDaemon(t, home)
	waitFor(t, "the retention pass at start", func() bool {
		s := status(t, home)
		return s.Daemon.Running && s.Executions == 0
	})
	if after := grades(); after != before {
		t.Errorf("grades changed:\n%s\n%s", before, after)
	}
	// Sessions recorded now are kept (the next pass is a day away).
	f, err := os.OpenFile(spool.Path(home), os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range sessiongen.Generate(sessiongen.Options{Seed: 8, Sessions: 3, Project: shopProject, Start: now.Add(-10 * time.Minute), Skills: []sessiongen.Skill{skill}}) {
		f.Write(append(l, '\n'))
	}
	f.Close()
	var left statusDoc
	waitFor(t, "new executions", func() bool { left = status(t, home); return left.Executions > 0 })
	t.Logf("%d executions pruned at start; %d recorded since", all.Executions, left.Executions)
	var doc struct{ Grades []struct{ N int } }
	if err := json.Unmarshal([]byte(grades()), &doc); err != nil || len(doc.Grades) == 0 || doc.Grades[0].N == 0 {
		t.Errorf("grades after new executions: %v %+v", err, doc)
	}
	d.stop(t)
}
