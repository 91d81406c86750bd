package e2e

import (
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/internal/pgtest"
	"github.com/sepad/sepad/internal/sessiongen"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/team"
)

// TestTeamSkillPage: two machines (two homes, two clones of one
// repository) ship deploy's two versions to one PostgreSQL; one machine's
// dashboard, in chromium, shows on deploy's page each version over both
// machines (runs: the sum of both machines' own n; machines 2), each
// machine's part with its mean, the spread of the machines' means, and
// the team's decision, as `sepad versions deploy --team --json` and
// `sepad decisions --team --json` give them.
func TestTeamSkillPage(t *testing.T) {
	skipLong(t)
	c := pgtest.Start(t)
	ctx := browser(t)
	shots := artifacts(t, "team-skill")
	base := t.TempDir()
	origin := filepath.Join(base, "origin.git")
	gitRun(t, "init", "-q", "--bare", origin)
	v1, v2 := promptfile.Hash([]byte("# Deploy\n\nShip it.\n")), promptfile.Hash([]byte("# Deploy\n\nShip it, then check it.\n"))
	var ms []*teamMachine
	for i, name := range []string{"ana", "ben"} {
		m := &teamMachine{home: filepath.Join(base, name, "sepa"), clone: filepath.Join(base, name, "src", "shop")}
		gitRun(t, "clone", "-q", origin, m.clone)
		skill := filepath.Join(m.clone, ".claude", "skills", "deploy", "SKILL.md")
		writeFile(t, skill, "# Deploy\n\nShip it, then check it.\n")
		m.config = filepath.Join(base, name, "config.yaml")
		writeFile(t, m.config, "team:\n  postgres: \""+c.DSN+"\"\n  person: "+name+"\n")
		// v1 then v2, each machine at its own level: the machines'
		// means differ, and v2 is better on both.
		for j, v := range []struct {
			hash    string
			quality float64
		}{{v1, 0.35 + 0.15*float64(i)}, {v2, 0.8 + 0.15*float64(i)}} {
			m.lines = append(m.lines, sessiongen.Generate(sessiongen.Options{Seed: uint64(21 + 2*i + j), Sessions: 20, TurnsPerSession: 4, ToolsPerTurn: 4,
				Project: m.clone, Start: time.Now().UTC().Add(time.Duration(j-3) * time.Hour),
				Skills: []sessiongen.Skill{{Name: "deploy", Path: skill, Version: v.hash, Quality: v.quality}}})...)
		}
		ms = append(ms, m)
	}
	if out, code := teamCLI(t, ms[0], "team", "init"); code != 0 {
		t.Fatalf("team init: %d %s", code, out)
	}
	for _, m := range ms {
		var b strings.Builder
		for _, l := range m.lines {
			b.Write(l)
			b.WriteByte('\n')
		}
		if err := appendLocked(m.home, []byte(b.String())); err != nil {
			t.Fatal(err)
		}
		// The daemon reads its whole spool (stopped cleanly and started
		// again until it has), then ships what it stored.
		m.start(t)
		for i := 0; ; i++ {
			time.Sleep(time.Second)
			m.d.stop(t)
			if caughtUp(t, m.home) {
				break
			}
			if i == 60 {
				t.Fatalf("%s never caught up with its spool", m.home)
			}
			m.start(t)
		}
		since := time.Now().UTC()
		m.start(t)
		m.waitShipped(t, since)
	}
	defer ms[0].d.stop(t)
	defer ms[1].d.stop(t)

	// What the page must show: the team's versions and decisions, and
	// each machine's own n of each version.
	var vs team.Versions
	if out, code := teamCLI(t, ms[1], "versions", "deploy", "--team", "--json"); code != 0 || json.Unmarshal([]byte(out), &vs) != nil {
		t.Fatalf("versions --team: %d %s", code, out)
	}
	var ds struct {
		Decisions []team.TeamDecision `json:"decisions"`
	}
	deadline := time.Now().Add(2 * time.Minute)
	for len(ds.Decisions) == 0 && time.Now().Before(deadline) {
		out, code := teamCLI(t, ms[1], "decisions", "deploy", "--team", "--json")
		if code != 0 || json.Unmarshal([]byte(out), &ds) != nil {
			t.Fatalf("decisions --team: %d %s", code, out)
		}
		time.Sleep(time.Second)
	}
	if len(ds.Decisions) == 0 {
		t.Fatal("no team decision on deploy's two versions")
	}
	localN := map[string]int{} // hash → both machines' n
	for _, m := range ms {
		var g struct {
			Grades []struct {
				Skill string `json:"skill"`
				Hash  string `json:"hash"`
				N     int    `json:"n"`
			} `json:"grades"`
		}
		if out, code := teamCLI(t, m, "grades", "--all-versions", "--json"); code != 0 || json.Unmarshal([]byte(out), &g) != nil {
			t.Fatalf("local grades: %d %s", code, out)
		}
		for _, r := range g.Grades {
			if r.Skill == "deploy" {
				localN[r.Hash] += r.N
			}
		}
	}
	if len(vs.Versions) != 2 || localN[v1] == 0 || localN[v2] == 0 {
		t.Fatalf("want deploy's two versions run on both machines: team %+v, local n %v", vs.Versions, localN)
	}

	// ben's dashboard, logged in, deploy's page.
	out, errOut, code := sepad(t, []string{"SEPA_HOME=" + ms[1].home, "SEPA_CONFIG=" + ms[1].config}, nil, "dashboard", "--home", ms[1].home, "--json")
	var l api.Login
	if code != 0 || json.Unmarshal([]byte(out), &l) != nil || l.URL == "" {
		t.Fatalf("sepad dashboard: %d %s %s", code, out, errOut)
	}
	browse(t, ctx, "log in", chromedp.Navigate(l.URL), chromedp.WaitVisible(chromedp.CSS("#skills")))
	root := browseValue(t, ctx, "the overview's address", chromedp.Location())
	key := filepath.Join(ms[1].clone, ".claude", "skills", "deploy", "SKILL.md")
	browse(t, ctx, "deploy's page", chromedp.Navigate(root+"skill?key="+url.QueryEscape(key)), chromedp.WaitVisible(chromedp.CSS("#team-versions")))
	screenshot(t, ctx, shots, "deploy")
	rows := browseValue(t, ctx, "the team's versions", chromedp.Evaluate[[]map[string]string](`[...document.querySelectorAll("#team-versions tbody tr")].map(r => ({
		hash: r.dataset.hash, n: r.dataset.n, machines: r.dataset.machines, spread: r.querySelector(".spread").textContent.trim(),
		here: r.cells[0].textContent.trim()}))`))
	parts := browseValue(t, ctx, "each machine's part", chromedp.Evaluate[[]map[string]string](`[...document.querySelectorAll("#team-machines tbody tr")].map(r => ({
		hash: r.dataset.hash, machine: r.dataset.machine, n: r.dataset.n, mean: r.cells[4].textContent.trim()}))`))
	decisions := browseValue(t, ctx, "the team's decisions", chromedp.Text(chromedp.CSS("#team-decisions")))

	if len(rows) != 2 {
		t.Fatalf("the page shows %d team versions, want 2: %v", len(rows), rows)
	}
	ids := map[string]bool{}
	for _, m := range ms {
		id, err := team.MachineID(m.home)
		if err != nil {
			t.Fatal(err)
		}
		ids[id] = true
	}
	for i, r := range rows {
		want := vs.Versions[i]
		if r["hash"] != want.Hash || r["n"] != strconv.Itoa(localN[want.Hash]) || r["machines"] != "2" || want.Spread == nil ||
			r["spread"] != fmt.Sprintf("%.1f", *want.Spread) {
			t.Errorf("team version %d on the page %v, want hash %s, n %d (both machines' own), machines 2, spread %v", i, r, want.Hash, localN[want.Hash], want.Spread)
		}
	}
	if len(parts) != 4 {
		t.Fatalf("the page shows %d machine parts, want 2 versions × 2 machines: %v", len(parts), parts)
	}
	for _, p := range parts {
		if !ids[p["machine"]] || p["mean"] == "–" {
			t.Errorf("a machine's part on the page: %v (machines %v)", p, ids)
		}
	}
	d := ds.Decisions[0]
	for _, want := range []string{d.Outcome, d.Baseline[:7], d.Candidate[:7], d.Words} {
		if !strings.Contains(decisions, want) {
			t.Errorf("the team's decisions on the page lack %q:\n%s", want, decisions)
		}
	}
	t.Logf("deploy over 2 machines: %v; decision %s %s", rows, d.Outcome, d.Words)
}
