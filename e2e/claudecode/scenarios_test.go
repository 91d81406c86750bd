package claudecode

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/sepad/sepad/internal/fakeclaude"
)

// scenario is one everyday flow run on the real client. run drives Claude
// Code in a fresh env; check looks at the executions `sepad score` finds in
// the spool, live and (golden_test.go) in the recorded spool.
type scenario struct {
	name string
	// versions limits the scenario to some Claude Code versions (nil: all).
	versions []string
	run      func(e *env)
	check    func(t *testing.T, version string, xs []scored)
	// spoolCheck, when set, checks the spool itself (live and recorded).
	spoolCheck func(t *testing.T, spool []byte)
}

func (s scenario) on(version string) bool {
	if s.versions == nil {
		return true
	}
	for _, v := range s.versions {
		if v == version {
			return true
		}
	}
	return false
}

func bash(cmd string) fakeclaude.Tool {
	return fakeclaude.Tool{Name: "Bash", Input: map[string]any{"command": cmd, "description": "run " + cmd}}
}

func skillCall(name string) fakeclaude.Tool {
	return fakeclaude.Tool{Name: "Skill", Input: map[string]any{"skill": name}}
}

const deploySkill = "---\nname: deploy\ndescription: Deploy the app. Use when asked to deploy.\n---\n# Deploy\n\n1. Run the checks.\n2. Ship it.\n"

const answer = "## Done\n\n- checks passed\n- shipped\n\nNext: watch the dashboard."

// one returns the only execution of a skill, failing otherwise.
func one(t *testing.T, xs []scored, skill string) scored {
	t.Helper()
	got := bySkill(xs, skill)
	if len(got) != 1 {
		t.Fatalf("want 1 execution of %s, got %d:\n%s", skill, len(got), dump(xs))
	}
	return got[0]
}

func uniqueIDs(t *testing.T, xs []scored) {
	t.Helper()
	seen := map[string]bool{}
	for _, x := range xs {
		if seen[x.ID] {
			t.Fatalf("execution ID %s twice:\n%s", x.ID, dump(xs))
		}
		seen[x.ID] = true
	}
}

var scenarios = []scenario{
	{
		name: "plain",
		run: func(e *env) {
			e.write("CLAUDE.md", "# Project\nBe brief.\n")
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.API.Set("plain", fakeclaude.Script{
				{Text: "Let me look.", Tools: []fakeclaude.Tool{bash("echo hi")}},
				{Tools: []fakeclaude.Tool{bash("exit 3")}},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Text: answer},
			})
			e.claude("-p", "look around, then deploy @@plain@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			s := one(t, xs, "_session")
			if s.ToolCalls != 2 || s.ToolFailures != 1 {
				t.Errorf("_session: %d calls %d failed, want 2 and 1", s.ToolCalls, s.ToolFailures)
			}
			d := one(t, xs, "deploy")
			if d.ToolCalls != 2 || d.ToolFailures != 0 || !d.HasOutput || !d.Complete {
				t.Errorf("deploy: %+v", d)
			}
			if d.SkillPath == "" || d.SkillVersion == "" {
				t.Errorf("deploy has no prompt file: %+v", d)
			}
		},
	},
	{
		name: "typed_skill",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill+"\n@@typed@@\n")
			e.API.Set("typed", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Text: answer},
			})
			e.claude("-p", "/deploy now")
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := one(t, xs, "deploy")
			if d.ToolCalls != 1 || d.SkillVersion == "" || !d.HasOutput {
				t.Errorf("deploy: %+v", d)
			}
			if len(bySkill(xs, "_session")) != 0 {
				t.Errorf("a typed skill's turn is the skill's:\n%s", dump(xs))
			}
		},
	},
	{
		name:     "typed_while_working",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			release := make(chan struct{})
			e.API.Set("midturn", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo building")}, Wait: release},
				{Tools: []fakeclaude.Tool{bash("exit 1")}},
				{Text: answer},
			})
			e.streamInput([]string{"deploy it @@midturn@@", "also run the smoke tests"}, release)
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := one(t, xs, "deploy")
			if d.ToolCalls != 3 || d.ToolFailures != 1 {
				t.Errorf("deploy: %d calls, %d failed; want 3 and 1 (the typed message continues the turn)\n%s", d.ToolCalls, d.ToolFailures, dump(xs))
			}
			if len(bySkill(xs, "_session")) != 0 {
				t.Errorf("the typed message opened a _session execution:\n%s", dump(xs))
			}
		},
	},
	{
		name: "resume",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.API.Set("resume", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo one")}},
				{Text: answer},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("exit 2")}},
				{Text: answer},
			})
			out, _ := e.claude("-p", "deploy @@resume@@")
			id := sessionID(e.t, out)
			e.claude("-p", "deploy again", "--resume", id)
			e.claude("-p", "and once more", "--continue")
		},
		check: func(t *testing.T, v string, xs []scored) {
			uniqueIDs(t, xs)
			if n := len(bySkill(xs, "deploy")); n != 2 {
				t.Errorf("want 2 deploy executions over the resumed session, got %d:\n%s", n, dump(xs))
			}
		},
	},
	{
		name: "api_error",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.API.Set("apierr", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo checks ok")}},
				{Status: 400, ErrorMessage: "invalid request: scripted"},
			})
			e.claude("-p", "deploy @@apierr@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			d := one(t, xs, "deploy")
			if d.HasOutput {
				t.Errorf("Claude Code's error text was taken as the answer: %+v", d)
			}
			if d.StopError == "" && !d.Complete {
				// Seen on 2.1.328: the StopFailure hook can be lost when
				// the process exits at once; the turn then never closed.
				t.Logf("no StopFailure reached the hook; the execution is incomplete")
				return
			}
			if d.StopError == "" {
				t.Errorf("the API error is not recorded: %+v", d)
			}
			if d.Errors == 0 || d.Score >= 80 {
				t.Errorf("an execution ended by an API error scored %.2f with %d errors", d.Score, d.Errors)
			}
		},
	},
	{
		name: "fix_loop",
		run: func(e *env) {
			e.API.Set("fix", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("cat fixed.txt")}},
				{Tools: []fakeclaude.Tool{{Name: "Write", Input: map[string]any{"file_path": filepath.Join(e.Project, "fixed.txt"), "content": "ok\n"}}}},
				{Tools: []fakeclaude.Tool{bash("cat fixed.txt")}},
				{Tools: []fakeclaude.Tool{bash("cat missing.txt")}},
				{Tools: []fakeclaude.Tool{bash("cat missing.txt")}},
				{Text: answer},
			})
			e.claude("-p", "make the test pass @@fix@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			s := one(t, xs, "_session")
			if s.ToolCalls != 5 || s.ToolFailures != 3 {
				t.Errorf("_session: %d calls %d failed, want 5 and 3", s.ToolCalls, s.ToolFailures)
			}
			// The rerun after the Write is verification; the second
			// missing.txt with nothing changed in between is a retry.
			if s.Retries != 1 {
				t.Errorf("retries = %d, want 1 (only the unchanged rerun)", s.Retries)
			}
		},
	},
	{
		name: "parallel",
		run: func(e *env) {
			e.API.Set("par", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo a"), bash("exit 4"), {Name: "Read", Input: map[string]any{"file_path": filepath.Join(e.Project, "nope.txt")}}}},
				{Text: answer},
			})
			e.claude("-p", "three at once @@par@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			s := one(t, xs, "_session")
			if s.ToolCalls != 3 || s.ToolFailures != 2 {
				t.Errorf("_session: %d calls %d failed, want 3 and 2\n%s", s.ToolCalls, s.ToolFailures, dump(xs))
			}
		},
	},
	{
		name: "subagent_foreground",
		run: func(e *env) {
			e.write(".claude/agents/review.md", "---\nname: review\ndescription: Reviews code.\n---\nYou review code.\n")
			e.API.Set("fg", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Agent", Input: map[string]any{"description": "review", "prompt": "review the code @@fgsub@@", "subagent_type": "review", "run_in_background": false}}}},
				{Text: answer},
			})
			e.API.Set("fgsub", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo reviewing"), bash("exit 5")}},
				{Text: "## Review\n\n- one issue\n"},
			})
			e.claude("-p", "get a review @@fg@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			r := one(t, xs, "review")
			if r.ToolCalls != 2 || r.ToolFailures != 1 || !r.HasOutput {
				t.Errorf("review: %+v", r)
			}
			s := one(t, xs, "_session")
			if s.ToolFailures != 0 {
				t.Errorf("the subagent's failure was charged to _session: %+v", s)
			}
		},
	},
	{
		name:     "subagent_background",
		versions: []string{"2.1.328"},
		run: func(e *env) {
			e.write(".claude/agents/review.md", "---\nname: review\ndescription: Reviews code.\n---\nYou review code.\n")
			e.API.Set("bg", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{{Name: "Agent", Input: map[string]any{"description": "review", "prompt": "review the code @@bgsub@@", "subagent_type": "review"}}}},
				{Text: "Started a review."},
				{Text: answer},
				{Text: answer},
			})
			e.API.Set("bgsub", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("sleep 1; echo reviewing")}},
				{Text: "## Review\n\n- fine\n"},
			})
			e.claude("-p", "review in the background @@bg@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			one(t, xs, "review")
			if n := len(bySkill(xs, "_session")); n != 1 {
				t.Errorf("the task notification opened a _session turn: %d _session executions\n%s", n, dump(xs))
			}
		},
	},
	{
		name: "fork_skill",
		run: func(e *env) {
			e.write(".claude/skills/audit/SKILL.md", "---\nname: audit\ndescription: Audit the repo. Use when asked to audit.\ncontext: fork\nagent: general-purpose\n---\n# Audit\n\nCheck everything. @@forksub@@\n")
			e.API.Set("fork", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("audit")}},
				{Text: answer},
			})
			e.API.Set("forksub", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo auditing"), bash("exit 6")}},
				{Text: "## Audit\n\n- one finding\n"},
			})
			e.claude("-p", "audit please @@fork@@")
		},
		check: func(t *testing.T, v string, xs []scored) {
			a := one(t, xs, "audit")
			if a.ToolFailures != 1 || a.ToolCalls < 2 {
				t.Errorf("the forked skill's work is not the skill's: %+v\n%s", a, dump(xs))
			}
			if n := len(bySkill(xs, "general-purpose")); n != 0 {
				t.Errorf("the fork's work was charged to the agent type:\n%s", dump(xs))
			}
		},
	},
	{
		name: "killed_mid_tool",
		run: func(e *env) {
			e.API.Set("kill", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{bash("echo start")}},
				{Tools: []fakeclaude.Tool{bash("node -e 'setTimeout(()=>{},30000)'")}},
				{Text: answer},
			})
			e.interruptDuringTool("slow work @@kill@@", "setTimeout")
		},
		check: func(t *testing.T, v string, xs []scored) {
			s := one(t, xs, "_session")
			if s.Complete {
				t.Errorf("a session killed mid-tool is complete: %+v", s)
			}
			if s.ToolFailures != 1 {
				t.Errorf("the interrupted call is not a failure: %+v", s)
			}
			// 2.1.197 sends no SessionEnd on Ctrl-C in -p mode: the
			// execution closes at the idle timeout (here: the end of
			// input) and lasts until its last event.
			if v != "2.1.197" && s.DurationMS < 300 {
				t.Errorf("duration %d ms does not run to the SessionEnd", s.DurationMS)
			}
		},
	},
	{
		name: "several_skills",
		run: func(e *env) {
			e.write(".claude/skills/deploy/SKILL.md", deploySkill)
			e.write(".claude/skills/lint/SKILL.md", "---\nname: lint\ndescription: Lint the code.\n---\n# Lint\nRun the linter.\n")
			e.API.Set("several", fakeclaude.Script{
				{Tools: []fakeclaude.Tool{skillCall("lint")}},
				{Tools: []fakeclaude.Tool{bash("exit 1")}},
				{Tools: []fakeclaude.Tool{skillCall("deploy")}},
				{Tools: []fakeclaude.Tool{bash("echo shipped")}},
				{Tools: []fakeclaude.Tool{skillCall("simplify")}},
				{Text: answer},
				{Text: "Reverted."},
			})
			e.streamTurns([]string{"lint and deploy @@several@@", "No, that's wrong: revert it"})
		},
		check: func(t *testing.T, v string, xs []scored) {
			l, d := one(t, xs, "lint"), one(t, xs, "deploy")
			if l.HasOutput || l.Corrections != 0 || l.ToolFailures != 1 {
				t.Errorf("lint: %+v", l)
			}
			if !d.HasOutput || d.Corrections != 1 || d.ToolFailures != 0 {
				t.Errorf("deploy (which gave the answer the user rejected): %+v", d)
			}
			if n := len(bySkill(xs, "simplify")); n != 0 {
				t.Errorf("a skill with no prompt file was graded:\n%s", dump(xs))
			}
		},
	},
}

// TestRealClient runs every scenario on every installed Claude Code.
func TestRealClient(t *testing.T) {
	for _, c := range clients(t) {
		t.Run(c.Version, func(t *testing.T) {
			for _, sc := range scenarios {
				if !sc.on(c.Version) {
					continue
				}
				t.Run(sc.name, func(t *testing.T) {
					e := newEnv(t, c)
					sc.run(e)
					spool := e.spool()
					if testing.Verbose() {
						t.Logf("spool:\n%s", spool)
					}
					xs := score(t, filepath.Join(e.State, "events.jsonl"))
					uniqueIDs(t, xs)
					sc.check(t, c.Version, xs)
					if sc.spoolCheck != nil {
						sc.spoolCheck(t, spool)
					}
					e.record(sc.name, spool)
				})
			}
		})
	}
}

// streamSession is a headless session fed with stream-json user messages
// on its stdin.
type streamSession struct {
	e      *env
	cancel context.CancelFunc
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    strings.Builder
}

func (e *env) startStream() *streamSession { return e.startStreamArgs() }

// startStreamArgs is startStream with more claude arguments.
func (e *env) startStreamArgs(args ...string) *streamSession {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	s := &streamSession{e: e, cancel: cancel, cmd: e.claudeCmd(ctx, append([]string{"-p", "--input-format", "stream-json"}, args...)...)}
	in, err := s.cmd.StdinPipe()
	if err != nil {
		e.t.Fatal(err)
	}
	s.in = in
	s.cmd.Stdout = &s.out
	s.cmd.Stderr = io.Discard
	if err := s.cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	return s
}

// send writes one user message.
func (s *streamSession) send(text string) {
	fmt.Fprintf(s.in, `{"type":"user","message":{"role":"user","content":[{"type":"text","text":%q}]}}`+"\n", text)
}

// end closes stdin, waits for the session and returns its stream.
func (s *streamSession) end() string {
	defer s.cancel()
	s.in.Close()
	if err := s.cmd.Wait(); err != nil {
		s.e.t.Logf("claude (stream-json input): %v", err)
	}
	return s.out.String()
}

// streamInput runs a session fed with stream-json user messages: the
// first at once, the others once the first turn is waiting on release,
// then releases it.
func (e *env) streamInput(msgs []string, release chan struct{}) string {
	e.t.Helper()
	s := e.startStream()
	s.send(msgs[0])
	// Wait until the turn is in progress (its second request is waiting).
	e.waitRequests(2)
	for _, m := range msgs[1:] {
		s.send(m)
	}
	time.Sleep(300 * time.Millisecond)
	close(release)
	// Close stdin once the session has answered everything.
	e.waitSpool(`"hook_event_name":"Stop"`)
	return s.end()
}

// streamTurns runs one session fed with stream-json user messages, each
// sent once the previous turn has stopped, as a person typing would.
func (e *env) streamTurns(msgs []string) string { return e.streamTurnsArgs(msgs) }

// streamTurnsArgs is streamTurns with more claude arguments.
func (e *env) streamTurnsArgs(msgs []string, args ...string) string {
	e.t.Helper()
	s := e.startStreamArgs(args...)
	for i, m := range msgs {
		s.send(m)
		e.waitCount(`"hook_event_name":"Stop"`, i+1)
	}
	return s.end()
}

func (e *env) waitCount(sub string, n int) {
	e.t.Helper()
	for i := 0; i < 600; i++ {
		b, _ := os.ReadFile(filepath.Join(e.State, "events.jsonl"))
		if strings.Count(string(b), sub) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("the spool never showed %q %d times", sub, n)
}

// interruptDuringTool starts a session and sends it SIGINT while the
// command marker runs, as Ctrl-C would.
func (e *env) interruptDuringTool(prompt, marker string) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := e.claudeCmd(ctx, "-p", prompt)
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		e.t.Fatal(err)
	}
	e.waitSpool(marker)
	time.Sleep(500 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
}

func (e *env) waitRequests(n int) {
	e.t.Helper()
	for i := 0; i < 600; i++ {
		if len(e.API.Requests()) >= n {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("the model server got fewer than %d requests", n)
}

func (e *env) waitSpool(sub string) {
	e.t.Helper()
	for i := 0; i < 600; i++ {
		b, _ := os.ReadFile(filepath.Join(e.State, "events.jsonl"))
		if strings.Contains(string(b), sub) {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	e.t.Fatalf("the spool never showed %q", sub)
}
