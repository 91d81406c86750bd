package evolve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// MaxAnswer bounds a mutator's answer (as api.MaxProposal bounds a
// proposal): a prompt file is a few kilobytes.
const MaxAnswer = 1 << 20

// DefaultTimeout bounds one mutator run (mutation.mutator_timeout).
const DefaultTimeout = 3 * time.Minute

// Answer is what a mutator returned.
type Answer struct {
	Text []byte
	// CostUSD is the run's cost as Claude Code reported it; HasCost is
	// false for a command mutator, which reports none.
	CostUSD      float64
	HasCost      bool
	InputTokens  int64
	OutputTokens int64
	Duration     time.Duration
}

// Mutator turns a request into a new text.
type Mutator interface {
	// Name says which mutator it is, for the record ("claude-code", or
	// the command's name).
	Name() string
	Mutate(ctx context.Context, request string) (Answer, error)
}

// ClaudeArgs are the arguments of the default mutator, after the
// claude binary: print mode with a JSON result, no tools at all, no
// hooks (the user's own hooks, sepad's included, must not record the
// mutator's run as a session of theirs), and nothing saved to disk. The
// request comes on stdin.
var ClaudeArgs = []string{"-p", "--output-format", "json", "--tools", "", "--settings", `{"disableAllHooks":true}`, "--no-session-persistence"}

// Claude is the user's own Claude Code run headless.
type Claude struct {
	// Bin is the claude command (mutation.claude: a name on PATH or a path).
	Bin     string
	Timeout time.Duration
	// Env is the environment (nil: the process's own).
	Env []string
}

// Name is "claude-code".
func (c Claude) Name() string { return "claude-code" }

// Mutate runs `claude -p` in an empty temporary directory (so no
// project's CLAUDE.md or settings come along) and returns the result
// text with its cost.
func (c Claude) Mutate(ctx context.Context, request string) (Answer, error) {
	dir, err := os.MkdirTemp("", "sepad-evolve-")
	if err != nil {
		return Answer{}, fmt.Errorf("%w: %v", ErrMutator, err)
	}
	defer os.RemoveAll(dir)
	bin := c.Bin
	if bin == "" {
		bin = "claude"
	}
	out, d, err := run(ctx, append([]string{bin}, ClaudeArgs...), request, c.Timeout, dir, c.Env)
	if err != nil {
		// claude -p prints its JSON result also when the turn failed:
		// its words say more than the exit status.
		if r, perr := ParseClaudeResult(out); perr == nil && r.IsError {
			return Answer{}, fmt.Errorf("%w: claude: %s%s", ErrMutator, cut(r.Result, MaxErrorText), LoginHint(r.Result, c.Env))
		}
		return Answer{}, err
	}
	r, err := ParseClaudeResult(out)
	if err != nil {
		return Answer{}, fmt.Errorf("%w: claude's answer: %v", ErrMutator, err)
	}
	if r.IsError || (r.Subtype != "" && r.Subtype != "success") {
		return Answer{}, fmt.Errorf("%w: claude ended with %s: %s%s", ErrMutator, r.Subtype, cut(r.Result, MaxErrorText), LoginHint(r.Result, c.Env))
	}
	return Answer{Text: []byte(r.Result), CostUSD: r.CostUSD, HasCost: true,
		InputTokens: r.Usage.Input + r.Usage.CacheRead + r.Usage.CacheCreation, OutputTokens: r.Usage.Output, Duration: d}, nil
}

// ClaudeResult is the part of `claude -p --output-format json`'s
// document that sepad reads.
type ClaudeResult struct {
	Type    string  `json:"type"`
	Subtype string  `json:"subtype"`
	IsError bool    `json:"is_error"`
	Result  string  `json:"result"`
	CostUSD float64 `json:"total_cost_usd"`
	Usage   struct {
		Input         int64 `json:"input_tokens"`
		Output        int64 `json:"output_tokens"`
		CacheRead     int64 `json:"cache_read_input_tokens"`
		CacheCreation int64 `json:"cache_creation_input_tokens"`
	} `json:"usage"`
}

// ParseClaudeResult decodes claude's JSON result: one document, or (with
// --verbose, or a wrapper that adds lines) the last line whose type is
// "result".
func ParseClaudeResult(b []byte) (ClaudeResult, error) {
	var r ClaudeResult
	t := bytes.TrimSpace(b)
	if len(t) == 0 {
		return r, errors.New("empty output")
	}
	if err := json.Unmarshal(t, &r); err == nil && r.Type == "result" {
		return r, nil
	}
	var arr []json.RawMessage
	if json.Unmarshal(t, &arr) == nil {
		for i := len(arr) - 1; i >= 0; i-- {
			var x ClaudeResult
			if json.Unmarshal(arr[i], &x) == nil && x.Type == "result" {
				return x, nil
			}
		}
	}
	lines := bytes.Split(t, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var x ClaudeResult
		if json.Unmarshal(bytes.TrimSpace(lines[i]), &x) == nil && x.Type == "result" {
			return x, nil
		}
	}
	return r, fmt.Errorf("no result document in %d bytes of output (starts %q)", len(b), cut(string(t), 80))
}

// Unwrap takes off what models put around a file's text: one code fence
// around the whole answer (```, ```markdown, ```md), or the request's
// own markers. Anything else is kept as it is.
func Unwrap(b []byte) []byte {
	s := string(b)
	t := strings.TrimSpace(s)
	if strings.HasPrefix(t, BeginText) && strings.HasSuffix(t, EndText) {
		t = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(t, BeginText), EndText))
		return []byte(t + "\n")
	}
	if strings.HasPrefix(t, "```") && strings.HasSuffix(t, "\n```") {
		first, rest, _ := strings.Cut(t, "\n")
		lang := strings.TrimSpace(strings.TrimPrefix(first, "```"))
		body := strings.TrimSuffix(rest, "```")
		if (lang == "" || lang == "markdown" || lang == "md") && !strings.Contains(body, "\n```") {
			return []byte(body)
		}
	}
	return b
}

// Command is a configured mutator (mutation.mutator: [cmd, args…]): the
// request on stdin, the new text on stdout.
type Command struct {
	Argv    []string
	Timeout time.Duration
	Env     []string
}

// Name is the command's first word.
func (c Command) Name() string {
	if len(c.Argv) == 0 {
		return "command"
	}
	return c.Argv[0]
}

// Mutate runs the command in the sepad process's working directory.
func (c Command) Mutate(ctx context.Context, request string) (Answer, error) {
	if len(c.Argv) == 0 {
		return Answer{}, fmt.Errorf("%w: mutation.mutator is empty", ErrMutator)
	}
	out, d, err := run(ctx, c.Argv, request, c.Timeout, "", c.Env)
	if err != nil {
		return Answer{}, err
	}
	return Answer{Text: out, Duration: d}, nil
}

// run starts argv with the request on stdin, waits at most timeout, and
// returns stdout (at most MaxAnswer bytes). A failure is ErrMutator with
// the reason: the exit status and the end of stderr, a timeout, or an
// answer too large.
func run(ctx context.Context, argv []string, stdin string, timeout time.Duration, dir string, env []string) ([]byte, time.Duration, error) {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Dir = dir
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var stdout limited
	stdout.max = MaxAnswer
	var stderr limited
	stderr.max = 64 << 10
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return stdout.Bytes(), d, fmt.Errorf("%w: %s timed out after %s", ErrMutator, argv[0], timeout)
	case ctx.Err() != nil:
		return stdout.Bytes(), d, fmt.Errorf("%w: %s: %v", ErrMutator, argv[0], ctx.Err())
	case errors.Is(err, exec.ErrNotFound):
		// The daemon's PATH, which may not be the person's shell's.
		return nil, d, fmt.Errorf("%w: %s is not on the PATH of the process that runs it (%s): install it there, or name it with its full path in mutation.mutator",
			ErrMutator, argv[0], cut(os.Getenv("PATH"), 200))
	case err != nil:
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = strings.TrimSpace(stdout.String())
		}
		if msg == "" { // nothing said: no ": " with nothing after it
			return stdout.Bytes(), d, fmt.Errorf("%w: %s: %v", ErrMutator, argv[0], err)
		}
		return stdout.Bytes(), d, fmt.Errorf("%w: %s: %v: %s", ErrMutator, argv[0], err, cut(msg, MaxErrorText))
	case stdout.over:
		return nil, d, fmt.Errorf("%w: %s answered more than %d bytes", ErrMutator, argv[0], MaxAnswer)
	}
	return stdout.Bytes(), d, nil
}

// limited is a buffer that keeps at most max bytes and notes the excess.
type limited struct {
	bytes.Buffer
	max  int
	over bool
}

func (l *limited) Write(p []byte) (int, error) {
	if room := l.max - l.Len(); len(p) > room {
		l.over = true
		if room > 0 {
			l.Buffer.Write(p[:room])
		}
		return len(p), nil
	}
	return l.Buffer.Write(p)
}

var _ io.Writer = (*limited)(nil)

// LoginHint explains Claude Code's "Not logged in" (or a refused key)
// when the default mutator ran claude: it runs inside the daemon, with
// the daemon's environment, not the shell's the person logged in from.
// It names that environment (never a secret's value) and how to give it
// credentials; "" for any other message.
func LoginHint(result string, env []string) string {
	l := strings.ToLower(result)
	if !strings.Contains(l, "not logged in") && !strings.Contains(l, "invalid api key") && !strings.Contains(l, "/login") {
		return ""
	}
	if env == nil {
		env = os.Environ()
	}
	get := func(k string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if v, ok := strings.CutPrefix(env[i], k+"="); ok {
				return v
			}
		}
		return ""
	}
	key := "unset"
	if get("ANTHROPIC_API_KEY") != "" {
		key = "set"
	}
	where := "HOME=" + get("HOME")
	if d := get("CLAUDE_CONFIG_DIR"); d != "" {
		where += ", CLAUDE_CONFIG_DIR=" + d
	}
	return fmt.Sprintf(". sepad's daemon (pid %d) runs claude with its own environment (%s, ANTHROPIC_API_KEY %s), not your shell's: "+
		"Claude Code there has no credentials. Give it some: put ANTHROPIC_API_KEY in the daemon's environment "+
		"(the service unit's Environment= or EnvironmentFile=, e.g. `systemctl --user edit sepad`; launchd's EnvironmentVariables; "+
		"or export it before `sepad run`), or log in once with that HOME (`claude`, then /login); then evolve again (docs/evolve.md)",
		os.Getpid(), where, key)
}
