// Package demo is `sepad demo`: recorded Claude Code sessions replayed
// through the hook's own code into the daemon's components, running in
// this process in a temporary project, with the story they tell (a
// mutation rejected and rolled back, one accepted, a subagent's F rolled
// back) checked as it happens.
package demo

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/sepad/sepad/collector"
	"github.com/sepad/sepad/daemon"
	"github.com/sepad/sepad/hooks"
	"github.com/sepad/sepad/internal/demodata"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/record"
	"github.com/sepad/sepad/render"
)

// Options are the demo's output and input.
type Options struct {
	Out   io.Writer
	Stdin io.Reader
	// Keep keeps the demo's state and project, and serves the dashboard
	// until Stdin ends.
	Keep bool
	// Self is how the person runs sepad again ("sepad", "go run
	// ./cmd/sepad" or a path), in the commands the demo suggests; ""
	// for SelfCommand.
	Self string
}

// The demo's prompt files: v1 of each, and the edits the story makes.
const (
	deployV1 = "---\nname: deploy\ndescription: Ship the shop to an environment\n---\n# Deploy\n\n1. Run `make check`.\n2. Run `make deploy ENV=<env>`.\n3. Report what was shipped.\n"
	deployV2 = "---\nname: deploy\ndescription: Ship the shop to an environment\n---\n# Deploy\n\nShip fast: skip the checks and run `make deploy` directly.\n"
	deployV3 = "---\nname: deploy\ndescription: Ship the shop to an environment\n---\n# Deploy\n\n1. Run `make check`; stop on the first failure and show it.\n2. Run `make deploy ENV=<env>`.\n3. Run the smoke tests.\n4. Report what was shipped, why it is safe, and what to watch next.\n"
	reviewV1 = "---\nname: review\ndescription: Review a diff before it ships\n---\n# Review\n\nRead the diff, run the tests, list concrete problems with file and line.\n"
	reviewV2 = "---\nname: review\ndescription: Review a diff before it ships\n---\n# Review\n\nTry every tool you can think of until something works.\n"
	claudeMD = "# Shop\n\nA small web shop. Use `make check` before any deploy.\n"
)

// Run runs the demo.
func Run(o Options) error {
	start := time.Now()
	tmp, err := os.MkdirTemp("", "sepad-demo-")
	if err != nil {
		return err
	}
	if !o.Keep {
		defer os.RemoveAll(tmp)
	}
	home, proj, user := filepath.Join(tmp, "state"), filepath.Join(tmp, "shop"), filepath.Join(tmp, "user")
	deploy := filepath.Join(proj, ".claude", "skills", "deploy", "SKILL.md")
	review := filepath.Join(proj, ".claude", "agents", "review.md")
	for _, f := range []struct{ path, body string }{
		{filepath.Join(proj, ".git", "HEAD"), "ref: refs/heads/main\n"},
		{filepath.Join(proj, "CLAUDE.md"), claudeMD},
		{deploy, deployV1},
		{review, reviewV1},
	} {
		if err := os.MkdirAll(filepath.Dir(f.path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(f.path, []byte(f.body), 0o644); err != nil {
			return err
		}
	}
	os.MkdirAll(user, 0o700)
	// As `sepad install --project` would: rollbacks write only in
	// projects a person installed or configured.
	if err := promptfile.RecordInstalledRoot(home, proj); err != nil {
		return err
	}
	logf, err := os.Create(filepath.Join(tmp, "sepad.log"))
	if err != nil {
		return err
	}
	defer logf.Close()
	logger := slog.New(slog.NewTextHandler(logf, nil))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The demo runs the daemon's components in this process, on the
	// built-in defaults; events go through the hook's own code path.
	// The demo edits the prompt files itself, as a mutator that writes
	// files would; by default sepad never rewrites a version a person
	// wrote (mutation.rollback_edits: ask), so the demo says auto.
	var observed atomic.Int64
	d, err := daemon.Open(ctx, daemon.Options{Home: home, UserHome: user, NoConfig: true, RollbackEdits: mutation.RollbackEditsAuto, Logger: logger,
		OnCommit: func(ci collector.CommitInfo) { observed.Add(int64(ci.Lines)) }})
	if err != nil {
		return err
	}
	defer d.Close()

	w := &replay{out: o.Out, d: d, home: home, proj: proj, user: user, observed: &observed, clock: time.Now().Add(-16 * time.Minute)}
	fmt.Fprintf(o.Out, "sepad demo: a temporary project %s with a skill (deploy), a subagent (review) and a CLAUDE.md.\n", proj)
	fmt.Fprintf(o.Out, "Recorded Claude Code sessions go through `sepad hook`'s code, the spool, the collector, the store and the mutation engine.\n\n")

	if err := w.phase("01-deploy-v1.jsonl", "deploy v1: %d runs with the original prompt"); err != nil {
		return err
	}
	if err := w.edit(deploy, deployV2, "deploy", "a mutation to deploy (v2): \"skip the checks\""); err != nil {
		return err
	}
	if err := w.phase("02-deploy-v2.jsonl", "deploy v2: %d runs with the mutated prompt"); err != nil {
		return err
	}
	w.story(deploy, deployV1, "v2 made deploy worse", "deploy's file is v1 again, byte for byte")
	if err := w.edit(deploy, deployV3, "deploy", "another mutation to deploy (v3): checks, smoke tests, a better report"); err != nil {
		return err
	}
	if err := w.phase("03-deploy-v3.jsonl", "deploy v3: %d runs"); err != nil {
		return err
	}
	w.story(deploy, deployV3, "v3 made deploy better", "deploy keeps v3")
	if err := w.phase("04-review-v1.jsonl", "review v1: %d runs of the review subagent"); err != nil {
		return err
	}
	if err := w.edit(review, reviewV2, "review", "a mutation to the review agent (v2): \"try every tool\""); err != nil {
		return err
	}
	if err := w.phase("05-review-v2.jsonl", "review v2: %d runs"); err != nil {
		return err
	}
	w.story(review, reviewV1, "review v2 was graded F", "review's file is v1 again")

	fmt.Fprintln(o.Out, "\nGrades per skill version:")
	if err := w.grades(); err != nil {
		return err
	}
	if err := w.explain(); err != nil {
		return err
	}
	if w.failed {
		return fmt.Errorf("the demo's story did not happen as recorded (log: %s)", filepath.Join(tmp, "sepad.log"))
	}
	fmt.Fprintf(o.Out, "\nDone in %.1fs.", time.Since(start).Seconds())
	self := o.Self
	if self == "" {
		self = SelfCommand()
	}
	if o.Keep {
		fmt.Fprintf(o.Out, " The state is kept; explore it (while the demo serves its dashboard, these ask its daemon) with:\n")
		for _, c := range []string{"grades --home " + home, "grades --home " + home + " --all-versions", "versions deploy --home " + home,
			"diff deploy v1 v3 --home " + home, "decisions --home " + home, "history deploy --home " + home,
			"score --explain " + filepath.Join(home, "events.jsonl")} {
			fmt.Fprintf(o.Out, "  %s %s\n", self, c)
		}
		fmt.Fprintf(o.Out, "  less %s\n", filepath.Join(tmp, "sepad.log"))
		return w.serveDashboard(o.Stdin, self)
	} else {
		fmt.Fprintf(o.Out, " Run `%s demo --keep` to keep the state and explore it with `%s grades --home DIR`.\n", self, self)
	}
	return nil
}

// serveDashboard ends `demo --keep`: the demo's daemon serves the web
// dashboard of the demo state, and its login link is the last line,
// until stdin ends (Enter, Ctrl-D, or no terminal: at once) or Ctrl-C.
func (w *replay) serveDashboard(stdin io.Reader, self string) error {
	srv := w.d.Server()
	if srv == nil {
		return fmt.Errorf("the demo's daemon serves no API")
	}
	l, err := srv.LoginLink()
	if err != nil {
		return err
	}
	fmt.Fprintf(w.out, "\nThe dashboard of the demo state, served until you press Enter or Ctrl-C (afterwards: `%s run --home %s`, then `%s dashboard --home %s`):\n%s\n",
		self, w.home, self, w.home, l.URL)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	done := make(chan struct{})
	go func() {
		if stdin != nil {
			bufio.NewReader(stdin).ReadString('\n')
		}
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
	return nil
}

type replay struct {
	out                  io.Writer
	d                    *daemon.Daemon
	home, proj, user     string
	lines                int64
	observed             *atomic.Int64
	lastDecisionsPrinted int
	clock                time.Time
	failed               bool
}

// phase replays one recorded file through the hook's code and waits until
// the daemon has committed and evaluated every line. title holds a %d for
// the file's number of runs (turns ending in Stop).
func (w *replay) phase(file, title string) error {
	b, err := demodata.Sessions.ReadFile("sessions/" + file)
	if err != nil {
		return err
	}
	// Recorded sessions carry no time (Claude Code payloads have none): the
	// hook stamps each with the demo's clock, one second apart, as if the
	// sessions had happened over the last quarter of an hour.
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	n := 0
	runs := 0
	for sc.Scan() {
		payload := bytes.ReplaceAll(sc.Bytes(), []byte("@PROJECT@"), []byte(w.proj))
		var ev struct {
			Name string `json:"hook_event_name"`
		}
		if json.Unmarshal(payload, &ev) == nil && ev.Name == "Stop" {
			runs++ // a turn of the recorded session: one run of the skill
		}
		w.clock = w.clock.Add(time.Second)
		now := w.clock
		if _, err := hooks.Handle(payload, hooks.Options{Home: w.home, UserHome: w.user, Now: func() time.Time { return now }}); err != nil {
			return fmt.Errorf("hook: %w", err)
		}
		n++
	}
	w.lines += int64(n)
	deadline := time.Now().Add(20 * time.Second)
	for w.observed.Load() < w.lines {
		if time.Now().After(deadline) {
			return fmt.Errorf("the daemon did not commit the demo's events in time (%d of %d lines)", w.observed.Load(), w.lines)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(w.out, "• %s (%d hook events)\n", fmt.Sprintf(title, runs), n)
	return nil
}

// edit changes a prompt file as a mutator would, and waits for the watcher
// to record the new version.
func (w *replay) edit(path, body, name, title string) error {
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		return err
	}
	want := promptfile.Hash([]byte(body))
	deadline := time.Now().Add(10 * time.Second)
	for {
		sk, err := w.d.DB().Skill(path)
		if err == nil && sk.Current == want {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the watcher did not see the edit of %s", path)
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprintf(w.out, "• %s\n", title)
	return nil
}

// story prints the decisions made since the last call and checks the file.
func (w *replay) story(path, want, what, outcome string) {
	ds, _ := w.d.DB().Decisions("", 0)
	var recs []string
	for i := len(ds) - 1 - w.lastDecisionsPrinted; i >= 0; i-- {
		recs = append(recs, string(ds[i].Payload))
	}
	w.lastDecisionsPrinted = len(ds)
	for _, r := range recs {
		var rec mutation.Record
		if err := json.Unmarshal([]byte(r), &rec); err == nil {
			// The words say it all (a decision's start with its verdict);
			// rule ids stay in `sepad decisions --json`.
			if rec.Decision == nil && rec.Kind == mutation.KindRollback {
				fmt.Fprintf(w.out, "    rolled back by a safety rule: %s\n", rec.Words)
				continue
			}
			fmt.Fprintf(w.out, "    %s\n", rec.Words)
		}
	}
	b, _ := os.ReadFile(path)
	if string(b) == want {
		fmt.Fprintf(w.out, "    ✓ %s: %s.\n", what, outcome)
	} else {
		fmt.Fprintf(w.out, "    ✗ expected: %s (%s), but the file differs.\n", what, outcome)
		w.failed = true
	}
}

func (w *replay) grades() error {
	skills, err := w.d.DB().Skills()
	if err != nil {
		return err
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	tw := render.Table(w.out)
	fmt.Fprintln(tw, "SKILL\tVERSION\tSTATUS\tN\tAGGREGATE\tGRADE\tCOMPARED\tADVICE")
	for _, sk := range skills {
		// The rows and comparisons `sepad versions` shows (one comparison
		// per version: against its decision's baseline), oldest first.
		vs, err := query.ListVersions(w.d.DB(), sk.Key)
		if err != nil {
			return err
		}
		for i := len(vs.Versions) - 1; i >= 0; i-- {
			r := &vs.Versions[i]
			if r.N == 0 {
				continue
			}
			fmt.Fprintf(tw, "%s\tv%d %s\t%s\t%d\t%s\t%s\t%s\t%s\n", sk.Display(), r.Version, r.Hash[:min(7, len(r.Hash))], render.OrDash(r.Status), r.N,
				render.Score(r.Aggregate), render.Grade(r.Grade), render.Compared(r), r.Advice)
		}
	}
	return tw.Flush()
}

// explain prints the breakdown of deploy v3's newest execution.
func (w *replay) explain() error {
	xs, err := w.d.DB().Executions(record.Filter{Skill: "deploy", Limit: 1})
	if err != nil || len(xs) == 0 {
		return err
	}
	x := xs[0]
	fmt.Fprintf(w.out, "\nOne execution explained (%s, deploy %s): %.2f, grade %s — %s\n", x.Exec.ID, x.Version[:7], x.Result.Score, x.Result.Grade, x.Result.Grade.Advice())
	tw := render.Table(w.out)
	fmt.Fprintln(tw, "  SIGNAL\tVALUE\tWEIGHT\tPOINTS\tDETAIL")
	for _, s := range x.Result.Signals {
		if !s.Present {
			fmt.Fprintf(tw, "  %s\tabsent\t-\t-\t%s\n", render.SignalName(s.Signal), s.Detail)
			continue
		}
		fmt.Fprintf(tw, "  %s\t%.2f\t%.2f\t%.2f\t%s\n", render.SignalName(s.Signal), s.SubScore, s.EffectiveWeight, s.Contribution, s.Detail)
	}
	return tw.Flush()
}
