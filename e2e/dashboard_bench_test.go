package e2e

import (
	"bytes"
	"fmt"
	"html"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/sepad/sepad/dashboard"
	"github.com/sepad/sepad/execution"
	"github.com/sepad/sepad/fitness"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/store"
)

// BenchmarkDashboardBigStore times the dashboard's pages over the big
// store (bigStoreSize: SEPAD_BIG=1 gives 1,000 skills × 10 versions and
// 1,000,000 executions), as server time: the page computed and rendered
// in process, without the page cache (as after every write). "cold" is
// the first render after opening the store (no execution row or version
// decoded yet); the overview is then computed again after each of a
// series of writes (one execution each, as the daemon commits them), with
// what the unchanged versions and executions decoded to remembered, as in
// a running daemon. It logs a table for
// BENCHMARKS.md:
//
//	SEPAD_BIG=1 go test ./e2e -run '^$' -bench DashboardBigStore -benchtime 1x -timeout 60m -v
func BenchmarkDashboardBigStore(b *testing.B) {
	skills, versions, n := bigStoreSize()
	home, err := os.MkdirTemp("", "sepad")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(home)
	cachedBigStore(b, home, skills, versions, n)
	db, err := store.Open(filepath.Join(home, "sepa.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	d := dashboard.New(dashboard.Options{DB: db, Home: home})
	// cpu is the process's CPU time (user and system, every thread: the
	// garbage collector's too). On a machine others load, wall time
	// stretches with the load; CPU time much less, so both are reported.
	cpu := func() time.Duration { return time.Duration(selfCPUSeconds() * 1e9) }
	cpus := map[string]timings{}
	render := func(path string) (time.Duration, []byte) {
		start, c0 := time.Now(), cpu()
		code, body := d.Render(httptest.NewRequest("GET", path, nil))
		took := time.Since(start)
		cpus[path] = append(cpus[path], cpu()-c0)
		if code != 200 {
			b.Fatalf("%s: %d\n%.500s", path, code, body)
		}
		return took, body
	}
	// write commits one more execution of a skill's newest version, as
	// the daemon does between two renders: each render then follows a
	// write that changed a version, as in steady ingestion.
	written := 0
	write := func(j int) {
		written++
		sk := j % 9 // skills 0-8 are in the first project, named after themselves
		at := time.Now().UTC()
		x := execution.Execution{ID: fmt.Sprintf("w%011d", written), SessionID: "bench-writes", Skill: fmt.Sprintf("skill%04d", sk), Kind: "skill",
			Project: "/home/dev/src/app", SkillPath: fmt.Sprintf("/home/dev/src/app/.claude/skills/skill%04d/SKILL.md", sk),
			SkillVersion: fmt.Sprintf("%08x%04x", sk, versions-1), StartedAt: at, EndedAt: at.Add(time.Second), Complete: true,
			Calls: []execution.ToolCall{{ID: "t", Name: "Bash"}}}
		res := fitness.Result{RubricVersion: fitness.RubricVersion, Scored: true, Score: 50, Grade: fitness.GradeOf(50)}
		if err := db.Commit(&store.Batch{Executions: []record.Scored{{Exec: x, Result: res}}}); err != nil {
			b.Fatal(err)
		}
	}
	reps := 10
	var lines []string
	row := func(what, path string, ts timings, size int) {
		c := cpus[path]
		cs := "–"
		if len(c) > 0 {
			cs = ms(c.pct(0.5))
		}
		lines = append(lines, fmt.Sprintf("| %s | %d | %s | %s | %s | %d KiB |", what, len(ts), ms(ts.pct(0.5)), ms(ts.pct(0.99)), cs, size/1024))
		delete(cpus, path)
	}
	for i := 0; i < b.N; i++ {
		lines = lines[:0]
		cold, body := render("/dashboard/")
		if got := bytes.Count(body, []byte("<tr data-skill=")); got != skills {
			b.Fatalf("the overview lists %d skills, want %d", got, skills)
		}
		row("overview, cold (first after opening the store)", "/dashboard/", timings{cold}, len(body))
		// Side by side with GET /v1/skills' own work (query.ListGrades,
		// which the overview builds on), alternating, so the ratio holds
		// under whatever else the machine runs.
		var ov, grades timings
		for j := 0; j < reps; j++ {
			write(j)
			start, c0 := time.Now(), cpu()
			if _, err := query.ListGrades(db, query.GradesRequest{}); err != nil {
				b.Fatal(err)
			}
			grades = append(grades, time.Since(start))
			cpus[""] = append(cpus[""], cpu()-c0)
			write(j)
			t, _ := render("/dashboard/")
			ov = append(ov, t)
		}
		row("overview, computed again (after a write)", "/dashboard/", ov, len(body))
		row("for comparison: the grades of every skill (GET /v1/skills computed)", "", grades, 0)
		var worst timings
		for j := 0; j < reps; j++ {
			t, _ := render("/dashboard/?sort=name&project=/home/dev/src/app")
			worst = append(worst, t)
		}
		row("overview of one project (900 skills), by name", "/dashboard/?sort=name&project=/home/dev/src/app", worst, 0)
		// The first skill the overview links to.
		_, href, ok := bytes.Cut(body, []byte(`href="skill?key=`))
		if !ok {
			b.Fatal("no skill link on the overview")
		}
		href, _, _ = bytes.Cut(href, []byte(`"`))
		skillURL := "/dashboard/skill?key=" + html.UnescapeString(string(href))
		var sk timings
		var skb []byte
		for j := 0; j < reps; j++ {
			t, body := render(skillURL)
			sk, skb = append(sk, t), body
		}
		row(fmt.Sprintf("skill page (%d executions, %d versions)", n/skills, versions), skillURL, sk, len(skb))
		var dec timings
		for j := 0; j < reps; j++ {
			t, _ := render("/dashboard/decisions")
			dec = append(dec, t)
		}
		row("decisions and notices", "/dashboard/decisions", dec, 0)
		b.ReportMetric(float64(cold.Microseconds())/1000, "cold-ms")
		b.ReportMetric(float64(ov.pct(0.5).Microseconds())/1000, "overview-p50-ms")
		b.ReportMetric(float64(ov.pct(0.99).Microseconds())/1000, "overview-p99-ms")
		b.ReportMetric(float64(ov.pct(0.5))/float64(grades.pct(0.5)), "overview/grades")
		if ov.pct(0.5) > time.Second {
			b.Logf("the overview took %v (p50), over the issue's 1 s", ov.pct(0.5))
		}
	}
	var la []byte
	la, _ = os.ReadFile("/proc/loadavg")
	b.Logf("%d skills × %d versions, %d executions; load average at the end: %s\n| page | runs | p50 | p99 | CPU p50 | HTML |\n|---|---|---|---|---|---|\n%s",
		skills, versions, n, bytes.TrimSpace(la), joinLines(lines))
}

func joinLines(ls []string) string {
	var b bytes.Buffer
	for _, l := range ls {
		b.WriteString(l + "\n")
	}
	return b.String()
}
