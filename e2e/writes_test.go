package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestWritesDaemonUpAndDown: accept, reject, rollback and propose give
// the same answers and leave the same state (the prompt file, versions,
// decisions) whether the daemon runs (the write goes through its socket
// and its engine applies it) or not (the CLI opens the database and
// applies it with an engine of its own). The same sequence of commands
// runs from the same snapshot both ways.
func TestWritesDaemonUpAndDown(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a daemon through two versions of a skill")
	}
	p := newProject(t)
	p.config("  auto_rollback: false\n")
	p.writeSkill("Run the checks, then make deploy.")
	d := startDaemonEnv(t, p)
	p.turns(5, 1, goodAnswer)
	p.release()
	p.edit("Deploy quickly; skip the checks.")
	p.turns(5, 2, "Deployed without checks.")
	p.release()
	time.Sleep(1500 * time.Millisecond)
	d.stop(t)
	t.Log("two versions recorded; the daemon stopped")

	db := filepath.Join(p.home, "sepa.db")
	snapDB, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	snapSkill, err := os.ReadFile(p.skill)
	if err != nil {
		t.Fatal(err)
	}
	proposal := filepath.Join(t.TempDir(), "proposal.md")
	writeFile(t, proposal, "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, deploy, then verify.\n")

	cmds := [][]string{
		{"versions", "deploy", "--json"},
		{"show", "deploy@v1", "--json"},
		{"diff", "deploy", "v1", "v2", "--json"},
		{"rollback", "deploy", "--to", "v1"},
		{"rollback", "deploy", "--to", "v1"}, // nothing to do
		{"rollback", "deploy", "--to", "v9"}, // no such version
		{"accept", "deploy"},
		{"propose", "deploy", proposal, "--strategy", "e2e", "--json"},
		{"reject", "deploy"},
		{"accept", "nope"},
		{"versions", "deploy", "--json"},
		{"decisions", "deploy", "--json"},
		{"decisions", "deploy"},
		{"label", "last", "--skill", "deploy", "failure", "--rater", "ana", "--note", "skipped the checks", "--rubric-version", "r1", "--json"},
		{"label", "last", "success", "--score", "0.68", "--model", "m1", "--rubric-version", "r1"},
		{"label", "nope", "success"},
		{"prune", "--before", "2999-01-01", "--yes"}, // every execution
		{"history", "deploy"},
		{"grades", "deploy", "--all-versions", "--json"},
		{"forget", "deploy"}, // without --yes
		{"forget", "deploy", "--yes"},
		{"versions", "deploy"},
		{"status", "--json"},
	}
	type step struct {
		run
		file string
	}
	// Times differ between the two runs (decisions, a proposal's first
	// sighting): compare them as placeholders.
	times := regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?Z?`)
	runAll := func() []step {
		var out []step
		for _, c := range cmds {
			if strings.Join(c, " ") == "forget deploy --yes" {
				// Let the daemon's watcher settle the rollbacks' writes
				// (debounce 100ms) first: a change seen after forget
				// starts the skill again.
				time.Sleep(500 * time.Millisecond)
			}
			o, e, code := sepad(t, p.env(), nil, append(c, "--home", p.home)...)
			f, _ := os.ReadFile(p.skill)
			out = append(out, step{run{times.ReplaceAllString(o, "TIME"), times.ReplaceAllString(e, "TIME"), code}, string(f)})
		}
		return out
	}

	d = startDaemonEnv(t, p)
	waitFor(t, "the daemon's socket", func() bool { return status(t, p.home).Daemon.Running })
	up := runAll()
	d.stop(t)
	t.Log("the commands ran with the daemon up")

	if err := os.WriteFile(db, snapDB, 0o600); err != nil {
		t.Fatal(err)
	}
	writeFile(t, p.skill, string(snapSkill))
	down := runAll()

	last := len(cmds) - 1                            // status: the daemon part differs
	contains(t, up[last].stdout, `"executions": 0,`) // deploy was the only skill with executions
	if !sameJSONExcept(t, up[last].stdout, down[last].stdout, "daemon") {
		t.Errorf("status --json differs beyond daemon after the writes:\n%s\n%s", up[last].stdout, down[last].stdout)
	}
	up[last].stdout, down[last].stdout = "", ""
	for i, c := range cmds {
		k := strings.Join(c, " ")
		if up[i] != down[i] {
			t.Errorf("sepad %s differs with the daemon down:\nUP (exit %d):\n%s%s\nfile:\n%s\nDOWN (exit %d):\n%s%s\nfile:\n%s", k,
				up[i].code, up[i].stdout, up[i].stderr, up[i].file, down[i].code, down[i].stdout, down[i].stderr, down[i].file)
		}
	}

	// What the steps did (the same both ways, checked above).
	want := []struct {
		code int
		out  string
	}{
		{0, `"version": 2,`},
		{0, `"content": "---\nname: deploy\ndescription: deploy the shop\n---\n# Deploy\n\nRun the checks, then make deploy.\n"`},
		{0, `"op": "+",`},
		{0, "rolled back v2"},
		{1, ""},
		{1, ""},
		{0, "accepted by hand"},
		{0, `"kind": "proposal"`},
		{0, "rolled back"},
		{1, ""},
		{0, `"source": "proposal"`},
		{0, `"seq": `},
		{0, "accepted by hand as the baseline"},
		{0, `"evaluation_label": "rejected"`},
		{0, "success 0.68 by model m1; score "}, // the figures depend on the runs' timing
		{1, ""},
		{0, "pruned 10 executions and 0 quarantined lines older than "},
		{0, "10 executions, none still stored (removed by sepad prune; the grades keep counting them); 3 versions\n"},
		{0, `"n": 5,`}, // the grades are kept
		{2, ""},
		{0, "forgot " + p.skill + ": 0 executions, 3 versions, "}, // pruned above
		{1, ""},
		{0, ""},
	}
	for i, w := range want {
		if up[i].code != w.code || !strings.Contains(up[i].stdout, w.out) {
			t.Errorf("sepad %s: exit %d, want %d, with %q in:\n%s%s", strings.Join(cmds[i], " "), up[i].code, w.code, w.out, up[i].stdout, up[i].stderr)
		}
	}
	// A success label raises the score (the figures depend on the runs'
	// timing, so only the direction is fixed).
	if m := regexp.MustCompile(`score (\d+\.\d+) → (\d+\.\d+)`).FindStringSubmatch(up[14].stdout); m == nil {
		t.Errorf("label: no 'score A → B' in %q", up[14].stdout)
	} else {
		before, _ := strconv.ParseFloat(m[1], 64)
		after, _ := strconv.ParseFloat(m[2], 64)
		if after <= before {
			t.Errorf("label success 0.68: score %s → %s, want it to rise", m[1], m[2])
		}
	}
	// Each --json output has the shape of its example in docs/api.md.
	checkDocumented(t, "GET /v1/skills/{skill}/versions/{version}", 0, up[1].stdout)
	checkDocumented(t, "GET /v1/skills/{skill}/diff", 0, up[2].stdout)
	checkDocumented(t, "POST /v1/skills/{skill}/rollback, /accept, /reject, /propose", 0, up[7].stdout)
	checkDocumented(t, "GET /v1/decisions", 0, up[11].stdout)
	checkDocumented(t, "POST /v1/executions/{id}/label", 0, up[13].stdout)
	contains(t, up[14].stdout, "as training data: usable for fine-tuning (export --format sft), not usable (score below 0.7) for preference pairs")
	contains(t, up[15].stderr, `no execution "nope"`)
	contains(t, up[21].stderr, `no skill named "deploy"`)
	contains(t, up[4].stderr, "nothing to do: the file already holds v1")
	contains(t, up[5].stderr, `no version "v9"`)
	contains(t, up[9].stderr, "known skills: deploy")
	if !strings.Contains(up[3].file, "Run the checks, then make deploy.") || !strings.Contains(up[7].file, "deploy, then verify") ||
		up[8].file != up[6].file {
		t.Errorf("the file after rollback, propose and reject:\n%s\n%s\n%s", up[3].file, up[7].file, up[8].file)
	}
	for _, s := range up {
		if strings.Count(s.stderr, "\n") > 1 || strings.Contains(s.stderr, "nothing_to_do") || strings.Contains(s.stderr, "bad request") {
			t.Errorf("an error should be one line in a user's words: %q", s.stderr)
		}
	}
}
