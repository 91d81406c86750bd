package claudecode

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// recorded is one recorded scenario: testdata/claude-code/<version>/<name>.
type recorded struct {
	Version, Name, Dir string
}

func recordings(t *testing.T) []recorded {
	t.Helper()
	dirs, err := filepath.Glob(filepath.Join("..", "..", "testdata", "claude-code", "*", "*", "events.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no recorded spools under testdata/claude-code (go test ./e2e/claudecode -update records them)")
	}
	var out []recorded
	for _, f := range dirs {
		d := filepath.Dir(f)
		out = append(out, recorded{Version: filepath.Base(filepath.Dir(d)), Name: filepath.Base(d), Dir: d})
	}
	return out
}

func scenarioNamed(name string) *scenario {
	for i := range scenarios {
		if scenarios[i].name == name {
			return &scenarios[i]
		}
	}
	return nil
}

// TestRecordedSpools checks every recorded spool without the CLI: `sepad
// score` finds the golden executions, and they pass the scenario's checks.
func TestRecordedSpools(t *testing.T) {
	for _, r := range recordings(t) {
		t.Run(r.Version+"/"+r.Name, func(t *testing.T) {
			if *update {
				writeGolden(t, r.Dir)
			}
			xs := score(t, filepath.Join(r.Dir, "events.jsonl"))
			sort.SliceStable(xs, func(i, j int) bool { return xs[i].ID < xs[j].ID })
			got, _ := json.MarshalIndent(xs, "", "  ")
			want, err := os.ReadFile(filepath.Join(r.Dir, "executions.golden.json"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(append(got, '\n'), want) {
				t.Errorf("executions differ from %s/executions.golden.json (go test ./e2e/claudecode -run TestRecordedSpools -update, then review the diff):\n%s", r.Dir, got)
			}
			uniqueIDs(t, xs)
			sc := scenarioNamed(r.Name)
			if sc == nil {
				t.Fatalf("recorded scenario %s has no definition in scenarios_test.go", r.Name)
			}
			sc.check(t, r.Version, xs)
			if sc.spoolCheck != nil {
				b, err := os.ReadFile(filepath.Join(r.Dir, "events.jsonl"))
				if err != nil {
					t.Fatal(err)
				}
				sc.spoolCheck(t, b)
			}
		})
	}
}

// TestDaemonMatchesScore feeds every recorded spool to a real `sepad run`
// and checks its store holds exactly the executions `sepad score` finds:
// same IDs, same scores, and no ERROR in its log.
func TestDaemonMatchesScore(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon per recorded spool")
	}
	for _, r := range recordings(t) {
		t.Run(r.Version+"/"+r.Name, func(t *testing.T) {
			want := score(t, filepath.Join(r.Dir, "events.jsonl"))
			d := replayFiles(t, filepath.Join(r.Dir, "events.jsonl"))
			d.waitStored(30*time.Second, func(xs []daemonExec) bool { return len(xs) >= len(want) })
			time.Sleep(200 * time.Millisecond) // nothing more may arrive
			got := d.executions()
			byID := map[string]daemonExec{}
			for _, g := range got {
				byID[g.ID] = g
			}
			if len(got) != len(want) {
				t.Errorf("daemon stored %d executions, sepad score finds %d; its log:\n%s", len(got), len(want), d.log.String())
			}
			for _, w := range want {
				g, ok := byID[w.ID]
				if !ok {
					t.Errorf("execution %s (%s) missing from the daemon's store", w.ID, w.Skill)
					continue
				}
				if (g.Score == nil) != !w.Scored || g.Score != nil && math.Abs(*g.Score-w.Score) > 0.005 {
					t.Errorf("execution %s: daemon score %v, sepad score %.2f", w.ID, g.Score, w.Score)
				}
			}
			d.stop()
		})
	}
}
