package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/internal/pgtest"
	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
	"github.com/sepad/sepad/team"
)

// The skill's file, the same in both clones, and its version.
const teamSkillText = "# Deploy\n\nShip it.\n"

var teamSkillHash = promptfile.Hash([]byte(teamSkillText))

// teamMachine is one person's machine: a sepad home, a clone of the
// team's repository, a configuration naming the team database.
type teamMachine struct {
	home, clone, config string
	lines               [][]byte
	d                   *daemon
}

func (m *teamMachine) start(t *testing.T) { m.d = startDaemon(t, m.home, "--config", m.config) }

// waitShipped waits until the machine's daemon has read its whole spool
// and shipped everything it stored.
func (m *teamMachine) waitShipped(t *testing.T, since time.Time) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Minute)
	for time.Now().Before(deadline) {
		st, err := team.ReadStatus(m.home)
		if err == nil && st.Connected && st.Pending == 0 && st.Updated.After(since) {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	st, err := team.ReadStatus(m.home)
	t.Fatalf("%s: not shipped after 3 minutes: %+v %v\n%s", m.home, st, err, m.d.stderr)
}

// TestTeamTwoMachines: two homes with two clones of one repository ship to
// one PostgreSQL while PostgreSQL is killed with SIGKILL in the middle of
// the burst and one daemon is killed with SIGKILL; then `sepad grades
// --team --json` pools both (machines 2, n the sum of both machines' n),
// and `sepad executions --team --json` holds exactly both machines'
// executions, none twice.
func TestTeamTwoMachines(t *testing.T) {
	skipLong(t)
	c := pgtest.Start(t)
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("skipped: git is not installed")
	}
	base := t.TempDir()
	origin := filepath.Join(base, "origin.git")
	gitRun(t, "init", "-q", "--bare", origin)
	var ms []*teamMachine
	for i, name := range []string{"ana", "ben"} {
		m := &teamMachine{home: filepath.Join(base, name, "sepa"), clone: filepath.Join(base, name, "src", "shop")}
		gitRun(t, "clone", "-q", origin, m.clone)
		skill := filepath.Join(m.clone, ".claude", "skills", "deploy", "SKILL.md")
		writeFile(t, skill, teamSkillText)
		m.config = filepath.Join(base, name, "config.yaml")
		writeFile(t, m.config, "team:\n  postgres: \""+c.DSN+"\"\n  person: "+name+"\ncollector:\n  batch_lines: 200\n")
		m.lines = sessiongen.Generate(sessiongen.Options{Seed: uint64(11 + i), Sessions: 60, TurnsPerSession: 6, ToolsPerTurn: 5,
			Project: m.clone, Start: time.Now().UTC().Add(-time.Hour),
			Skills: []sessiongen.Skill{{Name: "deploy", Path: skill, Version: teamSkillHash, Quality: 0.7 + 0.2*float64(i)}}})
		ms = append(ms, m)
	}
	if out, code := teamCLI(t, ms[0], "team", "init"); code != 0 || !strings.Contains(out, fmt.Sprintf("from version 0 to %d", team.SchemaVersion)) {
		t.Fatalf("team init: %d %s", code, out)
	}
	for _, m := range ms {
		m.start(t)
	}
	// The burst: both spools written in chunks while PostgreSQL and one
	// daemon are killed with SIGKILL.
	var wg sync.WaitGroup
	var written atomic.Int64 // chunks the first machine's writer appended
	crashed := make(chan struct{})
	const chunk = 50
	chunks := (len(ms[0].lines) + chunk - 1) / chunk
	for k, m := range ms {
		wg.Add(1)
		go func(m *teamMachine) {
			defer wg.Done()
			for i := 0; i < len(m.lines); i += chunk {
				var b bytes.Buffer
				for _, l := range m.lines[i:min(i+chunk, len(m.lines))] {
					b.Write(l)
					b.WriteByte('\n')
				}
				if err := appendLocked(m.home, b.Bytes()); err != nil {
					t.Error(err)
					return
				}
				if k == 0 && written.Add(1) == int64(0.8*float64(chunks)) {
					<-crashed // the burst goes on after the crashes, whatever the machine's speed
				}
				time.Sleep(20 * time.Millisecond)
			}
		}(m)
	}
	at := func(frac float64) {
		for written.Load() < int64(frac*float64(chunks)) {
			time.Sleep(5 * time.Millisecond)
		}
	}
	at(0.25)
	c.Kill9() // PostgreSQL crashes mid-burst
	at(0.4)
	ms[0].d.kill() // and so does one daemon
	c.Restart()
	ms[0].start(t)
	at(0.6)
	c.Kill9()
	at(0.75)
	c.Restart()
	close(crashed)
	wg.Wait()

	// Each daemon reads its whole spool (stopped cleanly and started
	// again until it has), then ships what it stored.
	for _, m := range ms {
		for i := 0; ; i++ {
			m.d.stop(t)
			if caughtUp(t, m.home) {
				break
			}
			if i == 30 {
				t.Fatalf("%s never caught up with its spool", m.home)
			}
			m.start(t)
			time.Sleep(time.Second)
		}
		since := time.Now().UTC()
		m.start(t)
		m.waitShipped(t, since)
		m.d.stop(t)
	}

	// What each machine holds, read from its own store.
	local := map[string]map[string]bool{} // machine → execution IDs
	sumN := 0
	for _, m := range ms {
		id, err := team.MachineID(m.home)
		if err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(filepath.Join(m.home, "sepa.db"), store.Options{ReadOnly: true, LockTimeout: 5 * time.Second})
		if err != nil {
			t.Fatal(err)
		}
		xs, err := db.Executions(record.Filter{})
		db.Close()
		if err != nil {
			t.Fatal(err)
		}
		local[id] = map[string]bool{}
		for _, x := range xs {
			local[id][x.Exec.ID] = true
		}
		var g struct {
			Grades []struct {
				Skill   string `json:"skill"`
				Hash    string `json:"hash"`
				Current bool   `json:"current"`
				N       int    `json:"n"`
			} `json:"grades"`
		}
		out, code := teamCLI(t, m, "grades", "--json")
		if code != 0 || json.Unmarshal([]byte(out), &g) != nil {
			t.Fatalf("local grades: %d %s", code, out)
		}
		for _, r := range g.Grades {
			if r.Skill == "deploy" && r.Current && r.Hash == teamSkillHash {
				sumN += r.N
			}
		}
	}
	if len(local) != 2 || sumN == 0 {
		t.Fatalf("local stores: %d machines, n %d", len(local), sumN)
	}

	var tg team.Grades
	out, code := teamCLI(t, ms[1], "grades", "--team", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &tg) != nil {
		t.Fatalf("grades --team: %d %s", code, out)
	}
	var row *team.GradeRow
	for i := range tg.Grades {
		if tg.Grades[i].Skill == "deploy" {
			row = &tg.Grades[i]
		}
	}
	if row == nil || tg.Machines != 2 || row.Machines != 2 || row.N != sumN || row.Hash != teamSkillHash || !row.Current ||
		row.Path != ".claude/skills/deploy/SKILL.md" {
		t.Fatalf("grades --team: want deploy's current version with machines 2 and n %d:\n%s", sumN, out)
	}

	var te team.Executions
	out, code = teamCLI(t, ms[0], "executions", "--team", "--json", "--limit", "1000000")
	if code != 0 || json.Unmarshal([]byte(out), &te) != nil {
		t.Fatalf("executions --team: %d %.2000s", code, out)
	}
	seen := map[string]bool{}
	want := 0
	for _, ids := range local {
		want += len(ids)
	}
	for _, e := range te.Executions {
		k := e.Machine + "/" + e.ID
		if seen[k] {
			t.Errorf("execution %s twice in the team store", k)
		}
		seen[k] = true
		if !local[e.Machine][e.ID] {
			t.Errorf("execution %s is in the team store, not on its machine", k)
		}
	}
	if len(te.Executions) != want {
		t.Fatalf("the team store holds %d executions, the machines %d", len(te.Executions), want)
	}
	t.Logf("two machines: %d executions shipped, pooled n %d", want, sumN)

	teamDoctor(t, ms[0])
	teamDashboard(t, ms[1])
	// The tables, as people read them.
	for _, args := range [][]string{{"grades", "--team"}, {"versions", "deploy", "--team"}, {"executions", "--team", "--limit", "5"},
		{"decisions", "--team"}, {"team", "status"}} {
		out, code := teamCLI(t, ms[1], args...)
		if code != 0 || out == "" {
			t.Fatalf("sepad %v: exit %d: %s", args, code, out)
		}
		if args[0] != "decisions" && args[0] != "team" {
			contains(t, out, "deploy")
		}
		// Words by default here too: no rule id (issue 36 item 6).
		for _, w := range forbiddenWords {
			if strings.Contains(out, w) {
				t.Errorf("sepad %v prints %q by default:\n%s", args, w, out)
			}
		}
	}
	// team status says where things stand.
	out, code = teamCLI(t, ms[0], "team", "status", "--json")
	var st struct {
		Pending  uint64 `json:"pending"`
		Shipped  uint64 `json:"shipped"`
		Database struct {
			Reachable bool `json:"reachable"`
			Schema    int  `json:"schema_version"`
		} `json:"database"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &st) != nil || st.Pending != 0 || st.Shipped == 0 || !st.Database.Reachable || st.Database.Schema != team.SchemaVersion {
		t.Fatalf("team status: %d %s", code, out)
	}
}

// teamDoctor: sepad doctor checks the team database and the shipper.
func teamDoctor(t *testing.T, m *teamMachine) {
	t.Helper()
	out, _, _ := sepad(t, []string{"SEPA_HOME=" + m.home, "SEPA_CONFIG=" + m.config}, nil, "doctor", "--home", m.home)
	contains(t, out, fmt.Sprintf("OK    the team database is reachable, schema version %d", team.SchemaVersion))
	contains(t, out, "OK    team shipping: ")
}

// teamDashboard: the daemon's dashboard has a team page with both
// machines' runs.
func teamDashboard(t *testing.T, m *teamMachine) {
	t.Helper()
	m.start(t)
	defer m.d.stop(t)
	c := api.SocketClient(api.SocketPath(m.home), 30*time.Second)
	var body []byte
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := c.Get("http://sepad/dashboard/team")
		if err == nil {
			body, _ = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	contains(t, string(body), `data-skill="deploy" data-machines="2"`)
	contains(t, string(body), "2 machines have shipped")
}

// teamCLI runs a sepad command for machine m.
func teamCLI(t *testing.T, m *teamMachine, args ...string) (string, int) {
	t.Helper()
	out, errOut, code := sepad(t, []string{"SEPA_HOME=" + m.home, "SEPA_CONFIG=" + m.config}, nil, args...)
	if code != 0 {
		t.Logf("sepad %v: exit %d: %s", args, code, errOut)
	}
	return out, code
}

func gitRun(t *testing.T, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v: %s", args, err, out)
	}
}
