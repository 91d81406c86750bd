package evals

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// A skill that is not in a plugin keeps its eval suite beside its
// SKILL.md, in the layout claude plugin eval reads from a plugin
// (DIR/evals/<case>/prompt.md with its graders): the layout of a
// skills-dir plugin without its manifest. RunSuite evaluates any text of
// that skill by building a private plugin around it.

// Copy limits of a skill's directory into the temporary plugin.
const (
	maxSkillFiles = 1000
	maxSkillBytes = 32 << 20
)

// SuiteDir returns the eval suite of the skill whose prompt file is path:
// the evals directory beside a SKILL.md, when it holds at least one case
// (a directory with a prompt.md or a case.yaml).
func SuiteDir(path string) (string, bool) {
	if filepath.Base(path) != "SKILL.md" {
		return "", false
	}
	dir := filepath.Join(filepath.Dir(path), "evals")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return "", false
	}
	for _, e := range ents {
		if !e.IsDir() || e.Name() == "results" {
			continue
		}
		for _, f := range []string{"prompt.md", "case.yaml"} {
			if fi, err := os.Stat(filepath.Join(dir, e.Name(), f)); err == nil && fi.Mode().IsRegular() {
				return dir, true
			}
		}
	}
	return "", false
}

// RunOptions say what RunSuite evaluates and how.
type RunOptions struct {
	// Claude is the Claude Code CLI.
	Claude string
	// Env is its environment (nil: this process's).
	Env []string
	// Prompt is the skill's SKILL.md: its directory (the suite, scripts,
	// references) is copied into the plugin, results excepted.
	Prompt string
	// Content is the text evaluated in place of the SKILL.md.
	Content []byte
	// Args go to claude plugin eval (--threshold T, --runs N, …).
	Args []string
	// Progress receives claude's progress output (nil: discarded).
	Progress io.Writer
}

// waitDelay bounds the wait for a killed claude's output (a variable for
// tests).
var waitDelay = 5 * time.Second

// ErrNoSuite: the prompt file has no eval suite beside it.
var ErrNoSuite = errors.New("no eval suite (an evals directory with cases beside the SKILL.md)")

// RunSuite runs the skill's suite against o.Content: it builds a plugin in
// a private temporary directory (mode 0700, removed afterwards) holding a
// copy of the skill's directory with o.Content as its SKILL.md and a
// manifest naming the plugin after the skill, so that the skill is called
// by its bare name as in the project, and runs `claude plugin eval DIR
// --json FILE --no-publish --trust-plugin ARGS…` on it. It returns the
// parsed result (no skill, version or time yet) and claude's exit code
// (1 when a case is below the threshold). The skill's own files are only
// read.
func RunSuite(ctx context.Context, o RunOptions) (*Evidence, int, error) {
	if _, ok := SuiteDir(o.Prompt); !ok {
		return nil, 0, fmt.Errorf("%s: %w", o.Prompt, ErrNoSuite)
	}
	tmp, err := os.MkdirTemp("", "sepad-eval-plugin-*")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o700); err != nil {
		return nil, 0, err
	}
	name := pluginName(filepath.Base(filepath.Dir(o.Prompt)))
	plugin := filepath.Join(tmp, name)
	if err := copySkill(filepath.Dir(o.Prompt), plugin); err != nil {
		return nil, 0, err
	}
	if err := os.WriteFile(filepath.Join(plugin, "SKILL.md"), o.Content, 0o600); err != nil {
		return nil, 0, err
	}
	manifest, _ := json.Marshal(map[string]string{"name": name, "version": "0.0.0", "description": "sepad's private plugin to evaluate one version of the skill " + name})
	if err := os.MkdirAll(filepath.Join(plugin, ".claude-plugin"), 0o700); err != nil {
		return nil, 0, err
	}
	if err := os.WriteFile(filepath.Join(plugin, ".claude-plugin", "plugin.json"), append(manifest, '\n'), 0o600); err != nil {
		return nil, 0, err
	}
	out := filepath.Join(tmp, "result.json")
	args := append([]string{"plugin", "eval", plugin, "--json", out, "--no-publish", "--trust-plugin"}, o.Args...)
	cmd := exec.CommandContext(ctx, o.Claude, args...)
	cmd.Env, cmd.Dir = o.Env, tmp
	// Cancelled, claude is killed; its eval sessions may hold the output
	// pipe a while longer: Wait gives up on them after this.
	cmd.WaitDelay = waitDelay
	progress := o.Progress
	if progress == nil {
		progress = io.Discard
	}
	cmd.Stdout, cmd.Stderr = progress, progress
	code := 0
	runErr := cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		return nil, 0, fmt.Errorf("claude plugin eval: %w", ctx.Err())
	case errors.As(runErr, &ee):
		code = ee.ExitCode()
	case runErr != nil:
		return nil, 0, fmt.Errorf("run %s: %w", o.Claude, runErr)
	}
	b, err := os.ReadFile(out)
	if err != nil || len(b) == 0 {
		return nil, code, fmt.Errorf("claude plugin eval exited %d and wrote no result", code)
	}
	e, err := Parse("claude plugin eval --json", b)
	if err != nil {
		return nil, code, fmt.Errorf("%w (claude exited %d)", err, code)
	}
	e.Plugin, e.PluginVersion = "", "" // the private plugin is no one's
	return e, code, nil
}

// pluginName makes a plugin name of a skill's directory name: lower case
// letters, digits and dashes.
func pluginName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	n := strings.Trim(b.String(), "-")
	if n == "" {
		return "skill"
	}
	return n
}

// copySkill copies the regular files of a skill's directory into dst,
// leaving out the suite's past results, any plugin manifest, and what
// would make the private plugin run code of its own beside the skill (a
// hooks directory, MCP and LSP server files at the top); symbolic links
// are not followed.
func copySkill(src, dst string) error {
	files, total := 0, int64(0)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		slash := filepath.ToSlash(rel)
		if d.IsDir() {
			if slash == "evals/results" || slash == ".claude-plugin" || slash == "hooks" {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		if !d.Type().IsRegular() || slash == ".mcp.json" || slash == ".lsp.json" {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		files++
		total += fi.Size()
		if files > maxSkillFiles || total > maxSkillBytes {
			return fmt.Errorf("%s: more than %d files or %d MiB: too large to copy for an eval", src, maxSkillFiles, maxSkillBytes>>20)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, fi.Mode().Perm()&0o700|0o600)
	})
}
