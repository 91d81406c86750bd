// Package sessiongen generates realistic Claude Code hook event streams, as
// `sepad hook` writes them to the spool: sessions of turns, tool calls that
// succeed, fail, are retried or interrupted, skills invoked by the model
// and by slash commands, subagents, and final answers in markdown. The same
// seed always gives the same lines; tests, benchmarks and the demo use it.
package sessiongen

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Skill describes a skill the generated sessions invoke, and how well its
// current version behaves.
type Skill struct {
	Name    string
	Path    string // prompt file, recorded as sepa.skill_path
	Version string // recorded as sepa.skill_version
	// Quality in [0,1]: the probability a tool call succeeds and the answer
	// is well structured.
	Quality float64
	// Agent marks a subagent definition (invoked through the Agent tool).
	Agent bool
}

// Options shape a stream.
type Options struct {
	Seed     uint64
	Sessions int
	// TurnsPerSession and ToolsPerTurn are upper bounds; actual counts vary.
	TurnsPerSession int
	ToolsPerTurn    int
	Project         string
	Skills          []Skill
	// Start is the time of the first event; events are a few seconds apart.
	Start time.Time
	// Interleave mixes the sessions' events as parallel sessions would.
	Interleave bool
	// BigOutput adds a large tool_response to some calls (bytes).
	BigOutput int
}

// Generate returns the lines (without newlines) of a stream.
func Generate(o Options) [][]byte {
	if o.TurnsPerSession == 0 {
		o.TurnsPerSession = 4
	}
	if o.ToolsPerTurn == 0 {
		o.ToolsPerTurn = 6
	}
	if o.Project == "" {
		o.Project = "/home/dev/src/app"
	}
	if o.Start.IsZero() {
		o.Start = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)
	}
	r := rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15))
	per := make([][][]byte, o.Sessions)
	for i := range per {
		per[i] = session(r, o, i)
	}
	if !o.Interleave {
		var out [][]byte
		for _, s := range per {
			out = append(out, s...)
		}
		return out
	}
	var out [][]byte
	idx := make([]int, len(per))
	for left := len(per); left > 0; {
		i := r.IntN(len(per))
		if idx[i] >= len(per[i]) {
			continue
		}
		// Emit a small run of one session's events.
		for n := 1 + r.IntN(4); n > 0 && idx[i] < len(per[i]); n-- {
			out = append(out, per[i][idx[i]])
			idx[i]++
		}
		if idx[i] >= len(per[i]) {
			left--
		}
	}
	return out
}

type builder struct {
	r       *rand.Rand
	o       Options
	session string
	t       time.Time
	lines   [][]byte
	n       int
}

func (b *builder) emit(ev string, fields map[string]any, sepa map[string]any) {
	m := map[string]any{
		"session_id":      b.session,
		"transcript_path": "/home/dev/.claude/projects/-home-dev-src-app/" + b.session + ".jsonl",
		"cwd":             b.o.Project,
		"hook_event_name": ev,
	}
	for k, v := range fields {
		m[k] = v
	}
	b.t = b.t.Add(time.Duration(500+b.r.IntN(4000)) * time.Millisecond)
	s := map[string]any{"v": 1, "ts": b.t.Format(time.RFC3339Nano), "project": b.o.Project}
	for k, v := range sepa {
		s[k] = v
	}
	m["sepa"] = s
	line, _ := json.Marshal(m)
	b.lines = append(b.lines, line)
}

func (b *builder) toolID() string {
	b.n++
	return fmt.Sprintf("toolu_%s_%04d", b.session[:8], b.n)
}

var tools = []struct {
	name  string
	input func(r *rand.Rand) map[string]any
}{
	{"Read", func(r *rand.Rand) map[string]any {
		return map[string]any{"file_path": fmt.Sprintf("/home/dev/src/app/pkg/f%d.go", r.IntN(40))}
	}},
	{"Bash", func(r *rand.Rand) map[string]any {
		return map[string]any{"command": []string{"go test ./...", "go build ./...", "make lint", "git status"}[r.IntN(4)]}
	}},
	{"Grep", func(r *rand.Rand) map[string]any { return map[string]any{"pattern": "TODO", "path": "."} }},
	{"Edit", func(r *rand.Rand) map[string]any {
		return map[string]any{"file_path": fmt.Sprintf("/home/dev/src/app/pkg/f%d.go", r.IntN(40)), "old_string": "a", "new_string": "b"}
	}},
}

func session(r *rand.Rand, o Options, i int) [][]byte {
	b := &builder{r: r, o: o, session: fmt.Sprintf("%08x-%04x-4000-8000-%012x", r.Uint32(), i%0xffff, r.Uint64()&0xffffffffffff),
		t: o.Start.Add(time.Duration(i) * 7 * time.Second)}
	b.emit("SessionStart", map[string]any{"source": "startup"}, nil)
	turns := 1 + r.IntN(o.TurnsPerSession)
	for t := 0; t < turns; t++ {
		var sk *Skill
		if len(o.Skills) > 0 && r.Float64() < 0.8 {
			sk = &o.Skills[r.IntN(len(o.Skills))]
		}
		quality := 0.85
		prompt := "Please fix the failing test in pkg"
		if t > 0 && r.Float64() < 0.1 {
			prompt = "No, that's wrong. Try again."
		}
		slash := sk != nil && !sk.Agent && r.Float64() < 0.3
		if slash {
			prompt = "/" + sk.Name + " staging"
		}
		var att map[string]any
		if sk != nil {
			att = map[string]any{"skill": sk.Name, "skill_path": sk.Path, "skill_version": sk.Version}
			quality = sk.Quality
		}
		if slash {
			b.emit("UserPromptSubmit", map[string]any{"prompt": prompt}, att)
			b.emit("UserPromptExpansion", map[string]any{"expansion_type": "slash_command", "command_name": sk.Name, "command_args": "staging", "prompt": prompt}, att)
		} else {
			b.emit("UserPromptSubmit", map[string]any{"prompt": prompt}, nil)
		}
		if sk != nil && !slash && !sk.Agent {
			in := map[string]any{"skill": sk.Name}
			id := b.toolID()
			b.emit("PreToolUse", map[string]any{"tool_name": "Skill", "tool_input": in, "tool_use_id": id}, att)
			b.emit("PostToolUse", map[string]any{"tool_name": "Skill", "tool_input": in, "tool_use_id": id,
				"tool_response": map[string]any{"success": true, "commandName": sk.Name}, "duration_ms": 3}, att)
		}
		b.calls(quality, 1+r.IntN(o.ToolsPerTurn), nil)
		if sk != nil && sk.Agent {
			in := map[string]any{"description": "review", "prompt": "Review the change", "subagent_type": sk.Name}
			id := b.toolID()
			b.emit("PreToolUse", map[string]any{"tool_name": "Agent", "tool_input": in, "tool_use_id": id}, att)
			agent := fmt.Sprintf("a%015x", r.Uint64()&0xfffffffffffffff)
			af := map[string]any{"agent_id": agent, "agent_type": sk.Name}
			b.emit("SubagentStart", af, att)
			b.calls(quality, 1+r.IntN(o.ToolsPerTurn), af)
			stop := map[string]any{"stop_hook_active": false, "last_assistant_message": answer(r, quality), "agent_transcript_path": "/tmp/x.jsonl"}
			for k, v := range af {
				stop[k] = v
			}
			b.emit("SubagentStop", stop, nil)
			b.emit("PostToolUse", map[string]any{"tool_name": "Agent", "tool_input": in, "tool_use_id": id,
				"tool_response": map[string]any{"status": "completed"}, "duration_ms": 20000}, att)
		}
		if r.Float64() < 0.05 {
			continue // interrupted turn: no Stop
		}
		b.emit("Stop", map[string]any{"stop_hook_active": false, "last_assistant_message": answer(r, quality)}, nil)
	}
	b.emit("SessionEnd", map[string]any{"reason": "prompt_input_exit"}, nil)
	return b.lines
}

// calls emits n tool calls whose success rate follows quality; a failed
// call is sometimes retried.
func (b *builder) calls(quality float64, n int, extra map[string]any) {
	for k := 0; k < n; k++ {
		tl := tools[b.r.IntN(len(tools))]
		in := tl.input(b.r)
		attempts := 1
		for a := 0; a < attempts; a++ {
			id := b.toolID()
			f := map[string]any{"tool_name": tl.name, "tool_input": in, "tool_use_id": id}
			for k, v := range extra {
				f[k] = v
			}
			b.emit("PreToolUse", f, nil)
			post := map[string]any{}
			for k, v := range f {
				post[k] = v
			}
			post["duration_ms"] = 10 + b.r.IntN(3000)
			if b.r.Float64() < quality {
				resp := map[string]any{"stdout": "ok", "stderr": "", "interrupted": false, "isImage": false}
				if b.o.BigOutput > 0 && b.r.IntN(20) == 0 {
					resp["stdout"] = strings.Repeat("x", b.o.BigOutput)
				}
				post["tool_response"] = resp
				b.emit("PostToolUse", post, nil)
			} else {
				post["error"] = "Exit code 1\nFAIL: TestThing"
				b.emit("PostToolUseFailure", post, nil)
				if a == 0 && b.r.Float64() < 0.5 {
					attempts = 2 // retry the same call
				}
			}
		}
	}
}

// answer returns a final message whose structure follows quality.
func answer(r *rand.Rand, quality float64) string {
	if r.Float64() > quality {
		return "Error: could not complete the task. The command failed."
	}
	var sb strings.Builder
	sb.WriteString("## Summary\n\nFixed the failing test because the total was computed before the discount.\n\n")
	sb.WriteString("- Changed `pkg/total.go`\n- Added a regression test\n\n")
	if r.Float64() < quality {
		sb.WriteString("```go\ntotal := price - discount\n```\n\n")
	}
	sb.WriteString("Next steps: run the full suite before merging.\n")
	return sb.String()
}
