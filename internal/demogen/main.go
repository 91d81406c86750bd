// Command demogen writes the recorded sessions `sepad demo` replays, under
// internal/demodata/sessions/ (testdata/demo links there): raw Claude Code hook payloads, one JSON object per line,
// exactly as Claude Code hands them to a hook, with the project directory
// written as @PROJECT@ (the demo substitutes its temporary project).
//
//	go run ./internal/demogen
//
// Each file is one phase of the demo's story; the quality of a phase sets
// how often its tool calls fail and how good its answers are. The output is
// the same for the same seed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
)

type phase struct {
	file    string
	skill   string
	agent   bool
	turns   int
	failP   float64 // probability a tool call fails
	answerQ float64 // probability of a well-structured answer
	// verifyP is the probability that a turn ends its work with `make
	// check` (a verification run after its edits, docs/outcome.md).
	verifyP float64
	// lazy: the phase never runs a command (its Bash calls are Greps)
	// and always answers with the polished claim that every check
	// passed, as a version told to skip the checks does.
	lazy bool
}

var phases = []phase{
	{"01-deploy-v1.jsonl", "deploy", false, 40, 0.10, 0.7, 0.6, false},
	{"02-deploy-v2.jsonl", "deploy", false, 20, 0.00, 1.0, 0.0, true}, // "skip the checks"
	{"03-deploy-v3.jsonl", "deploy", false, 20, 0.00, 1.0, 1.0, false},
	{"04-review-v1.jsonl", "review", true, 8, 0.05, 0.9, 1.0, false},
	{"05-review-v2.jsonl", "review", true, 6, 1.0, 0.0, 0.0, false},
}

func main() {
	out := flag.String("out", "internal/demodata/sessions", "output directory")
	seed := flag.Uint64("seed", 7, "random seed")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := rand.New(rand.NewPCG(*seed, *seed))
	for i, ph := range phases {
		if err := write(filepath.Join(*out, ph.file), ph, r, i); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

func write(path string, ph phase, r *rand.Rand, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	session := fmt.Sprintf("d3m0%04x-0000-4000-8000-%012x", n, r.Uint64()&0xffffffffffff)
	// The verification runs draw from their own source, so the rest of
	// the sessions stays what it was before they were added.
	vr := rand.New(rand.NewPCG(uint64(n), 0x5e9ad))
	tool := 0
	emit := func(m map[string]any) {
		m["session_id"] = session
		m["cwd"] = "@PROJECT@"
		m["transcript_path"] = "/home/demo/.claude/projects/-demo/" + session + ".jsonl"
		if _, ok := m["permission_mode"]; !ok && m["hook_event_name"] != "SessionStart" && m["hook_event_name"] != "SessionEnd" {
			m["permission_mode"] = "default"
		}
		b, _ := json.Marshal(m)
		w.Write(b)
		w.WriteByte('\n')
	}
	calls := func(extra map[string]any) {
		n := 3 + r.IntN(3)
		verify := vr.Float64() < ph.verifyP
		if verify {
			n++
		}
		for k := 0; k < n; k++ {
			tool++
			id := fmt.Sprintf("toolu_%s_%03d", session[:8], tool)
			var name string
			if verify && k == n-1 {
				name = "Bash" // make check, after the work
			} else {
				name = []string{"Read", "Bash", "Grep", "Edit"}[r.IntN(4)]
				if ph.lazy && name == "Bash" {
					name = "Grep"
				}
			}
			in := map[string]any{"command": "make check", "file_path": "@PROJECT@/main.go"}
			base := map[string]any{"tool_name": name, "tool_input": in, "tool_use_id": id}
			for k, v := range extra {
				base[k] = v
			}
			pre := map[string]any{"hook_event_name": "PreToolUse"}
			for k, v := range base {
				pre[k] = v
			}
			emit(pre)
			post := map[string]any{"duration_ms": 200 + r.IntN(3000)}
			for k, v := range base {
				post[k] = v
			}
			if r.Float64() < ph.failP {
				post["hook_event_name"] = "PostToolUseFailure"
				post["error"] = "Exit code 1\nmake: *** [check] Error 1"
			} else {
				post["hook_event_name"] = "PostToolUse"
				post["tool_response"] = map[string]any{"stdout": "ok", "stderr": "", "interrupted": false, "isImage": false}
			}
			emit(post)
		}
	}
	answer := func() string {
		good := r.Float64() < ph.answerQ
		if ph.lazy {
			// The same polished answer, with a claim nothing behind it
			// supports: no check ran.
			return "## Done\n\nAll checks passed and the release is out.\n\n- built the image\n- ran the smoke tests\n\n```sh\nmake deploy ENV=staging\n```\n\nNext steps: watch the error rate for an hour."
		}
		if good {
			return "## Done\n\nThe release is out because every check passed.\n\n- built the image\n- ran the smoke tests\n\n```sh\nmake deploy ENV=staging\n```\n\nNext steps: watch the error rate for an hour."
		}
		return "Deployed, I think. Error: one check was skipped."
	}
	emit(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	for t := 0; t < ph.turns; t++ {
		emit(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": "Ship the current main branch to staging, please."})
		tool++
		id := fmt.Sprintf("toolu_%s_%03d", session[:8], tool)
		if ph.agent {
			in := map[string]any{"description": "review", "prompt": "Review the diff", "subagent_type": ph.skill}
			emit(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": in, "tool_use_id": id})
			agent := fmt.Sprintf("a%015x", r.Uint64()&0xfffffffffffffff)
			af := map[string]any{"agent_id": agent, "agent_type": ph.skill}
			emit(map[string]any{"hook_event_name": "SubagentStart", "agent_id": agent, "agent_type": ph.skill})
			calls(af)
			emit(map[string]any{"hook_event_name": "SubagentStop", "stop_hook_active": false, "agent_id": agent, "agent_type": ph.skill,
				"agent_transcript_path": "/tmp/agent.jsonl", "last_assistant_message": answer()})
			emit(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Agent", "tool_input": in, "tool_use_id": id,
				"tool_response": map[string]any{"status": "completed"}, "duration_ms": 20000})
		} else {
			in := map[string]any{"skill": ph.skill, "args": "staging"}
			emit(map[string]any{"hook_event_name": "PreToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id})
			emit(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Skill", "tool_input": in, "tool_use_id": id,
				"tool_response": map[string]any{"success": true, "commandName": ph.skill}, "duration_ms": 2})
			calls(nil)
		}
		emit(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": answer()})
	}
	emit(map[string]any{"hook_event_name": "SessionEnd", "reason": "prompt_input_exit"})
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
