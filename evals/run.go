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
	"slices"
	"strings"
	"time"

	"github.com/sepad/sepad/prompt"
)

// A skill that is not in a plugin keeps its eval suite beside its
// SKILL.md, in the layout claude plugin eval reads from a plugin
// (DIR/evals/<case>/prompt.md with its graders): the layout of a
// skills-dir plugin without its manifest. A plugin keeps its suite in its
// own evals directory. Either way RunSuite evaluates a text of the skill
// on a private plugin sepad builds: the text and the suite, nothing else
// (docs/security.md, "What an eval runs").

// Copy limits of a suite into the private plugin.
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
	return dir, hasCase(dir)
}

// SuiteOf finds the suite `sepad eval` runs for the prompt file path: its
// plugin's, when path is in a plugin whose root is known (plugin is the
// plugin's name, root its directory; claudeDir is the user's Claude Code
// directory, whose plugin cache it looks in), else the evals directory
// beside its SKILL.md (SuiteDir; plugin and root ""). A prompt file with
// neither is an error.
func SuiteOf(path, claudeDir string) (plugin, root string, err error) {
	if name, dir, ok := prompt.PluginRoot(path, claudeDir); ok && dir != "" {
		return name, dir, nil
	}
	if _, ok := SuiteDir(path); ok {
		return "", "", nil
	}
	return "", "", fmt.Errorf("%s has no eval suite: `claude plugin eval` runs a plugin's suite, or sepad runs the suite in an evals directory beside a skill's SKILL.md (docs/claude-code.md, \"Evals\")", path)
}

// hasCase reports whether dir holds at least one case.
func hasCase(dir string) bool {
	return len(CaseNames(dir)) > 0
}

// CaseNames lists the cases of a suite directory in name order: its
// directories (past results aside) holding a regular prompt.md or
// case.yaml.
func CaseNames(dir string) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() && e.Name() != "results" && isCase(filepath.Join(dir, e.Name())) {
			names = append(names, e.Name())
		}
	}
	return names
}

// isCase reports whether dir holds a case's prompt.
func isCase(dir string) bool {
	for _, f := range []string{"prompt.md", "case.yaml"} {
		if fi, err := os.Lstat(filepath.Join(dir, f)); err == nil && fi.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// RunOptions say what RunSuite evaluates and how.
type RunOptions struct {
	// Claude is the Claude Code CLI.
	Claude string
	// Env is its environment (nil: this process's).
	Env []string
	// Prompt is the skill's prompt file (a SKILL.md, or a plugin's
	// command or agent file).
	Prompt string
	// Plugin is the root of the plugin that holds Prompt, whose evals
	// directory (or the one its manifest names) is the suite; "" for a
	// skill in no plugin, whose suite is the evals directory beside its
	// SKILL.md.
	Plugin string
	// Content is the text evaluated in place of the prompt file.
	Content []byte
	// Args go to claude plugin eval (--threshold T, --runs N, …).
	Args []string
	// Progress receives claude's progress output (nil: discarded).
	Progress io.Writer
	// Cases, when set, are the only cases run: the suite's other cases
	// are left out of the private plugin (the eval gate on a mutator's
	// text runs the cases its request held out, docs/evolve.md).
	Cases []string
	// Keep, when set, is the directory where claude writes its results
	// and HTML report (--output-dir, --report; unless Args name them):
	// kept after the run, unlike the private plugin's temporary
	// directory, so the paths claude prints stay true.
	Keep string
}

// waitDelay bounds the wait for a killed claude's output (a variable for
// tests).
var waitDelay = 5 * time.Second

// ErrNoSuite: the prompt file has no eval suite beside it.
var ErrNoSuite = errors.New("no eval suite (an evals directory with cases beside the SKILL.md, or in its plugin)")

// ErrRunsCode: the text evaluated would run commands of its own, which
// sepad does not run under --trust-plugin.
var ErrRunsCode = errors.New("the text runs commands of its own")

// RunSuite runs the skill's suite against o.Content: it builds a plugin in
// a private temporary directory (mode 0700, removed afterwards) holding
// o.Content where the prompt file is (its SKILL.md for a skill in no
// plugin), a copy of the suite's cases (regular files, no link followed,
// past results left out), and a manifest of sepad's own naming the plugin
// after the skill (or the plugin), so that the skill is called by its
// name as in the project; nothing else of the skill, the plugin or the
// project is copied. It runs `claude plugin eval DIR --json FILE
// --no-publish --trust-plugin ARGS…` on that plugin: sepad vouches only
// for what it built, so a text that runs commands of its own (front
// matter hooks, shell lines) is refused with ErrRunsCode before claude
// starts. It returns the parsed result (no skill, version or time yet)
// and claude's exit code (1 when a case is below the threshold). The
// skill's own files are only read.
func RunSuite(ctx context.Context, o RunOptions) (*Evidence, int, error) {
	name, version, rel, suite, err := layout(o)
	if err != nil {
		return nil, 0, err
	}
	if what := PowersOf(o.Content).RunsCode(); what != "" {
		return nil, 0, fmt.Errorf("%s: %w (%s): sepad evaluates only a text that runs nothing of its own, with --trust-plugin on a plugin it built; "+
			"run `claude plugin eval` yourself on a copy you trust, and record it with `sepad import --claude-eval`", o.Prompt, ErrRunsCode, what)
	}
	tmp, err := os.MkdirTemp("", "sepad-eval-plugin-*")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(tmp)
	if err := os.Chmod(tmp, 0o700); err != nil {
		return nil, 0, err
	}
	plugin := filepath.Join(tmp, name)
	if err := copySuite(suite, filepath.Join(plugin, "evals"), o.Cases); err != nil {
		return nil, 0, err
	}
	if err := writePrivate(filepath.Join(plugin, rel), o.Content); err != nil {
		return nil, 0, err
	}
	manifest, _ := json.Marshal(map[string]string{"name": name, "version": version, "description": "sepad's private plugin to evaluate one version of " + filepath.ToSlash(rel)})
	if err := writePrivate(filepath.Join(plugin, ".claude-plugin", "plugin.json"), append(manifest, '\n')); err != nil {
		return nil, 0, err
	}
	out := filepath.Join(tmp, "result.json")
	if o.Keep != "" {
		if err := os.MkdirAll(o.Keep, 0o700); err != nil {
			return nil, 0, err
		}
		out = filepath.Join(o.Keep, "result.json")
	}
	args := []string{"plugin", "eval", plugin, "--json", out, "--no-publish", "--trust-plugin"}
	if o.Keep != "" {
		if !slices.ContainsFunc(o.Args, func(a string) bool { return a == "--output-dir" || strings.HasPrefix(a, "--output-dir=") }) {
			args = append(args, "--output-dir", o.Keep)
		}
		if !slices.ContainsFunc(o.Args, func(a string) bool { return a == "--report" || strings.HasPrefix(a, "--report=") }) {
			args = append(args, "--report", filepath.Join(o.Keep, "report.html"))
		}
	}
	args = append(args, o.Args...)
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
	// The result names the private plugin: the plugin's own name, or
	// no one's for a skill in no plugin.
	e.Plugin, e.PluginVersion = "", ""
	if o.Plugin != "" {
		e.Plugin, e.PluginVersion = name, version
	}
	return e, code, nil
}

// layout finds the private plugin's name and version, where the text goes
// in it (rel), and the suite to copy.
func layout(o RunOptions) (name, version, rel, suite string, err error) {
	if o.Plugin == "" {
		dir, ok := SuiteDir(o.Prompt)
		if !ok {
			return "", "", "", "", fmt.Errorf("%s: %w", o.Prompt, ErrNoSuite)
		}
		return pluginName(filepath.Base(filepath.Dir(o.Prompt))), "0.0.0", "SKILL.md", dir, nil
	}
	rel, err = filepath.Rel(o.Plugin, o.Prompt)
	if err != nil || !filepath.IsLocal(rel) {
		return "", "", "", "", fmt.Errorf("%s is not a file of the plugin %s", o.Prompt, o.Plugin)
	}
	var m struct {
		Name         string `json:"name"`
		Version      string `json:"version"`
		Experimental struct {
			Evals any `json:"evals"`
		} `json:"experimental"`
	}
	if b, err := os.ReadFile(filepath.Join(o.Plugin, ".claude-plugin", "plugin.json")); err == nil {
		_ = json.Unmarshal(b, &m) // a broken manifest: the directory's name and evals/
	}
	name = pluginName(m.Name)
	if m.Name == "" {
		name = pluginName(filepath.Base(o.Plugin))
	}
	version = m.Version
	if version == "" {
		version = "0.0.0"
	}
	evalDir := "evals"
	if d, ok := m.Experimental.Evals.(string); ok && filepath.IsLocal(d) {
		evalDir = d
	}
	suite = filepath.Join(o.Plugin, evalDir)
	if !hasCase(suite) {
		// A plugin's skill with its suite beside its SKILL.md.
		if d, ok := SuiteDir(o.Prompt); ok {
			suite = d
		} else {
			return "", "", "", "", fmt.Errorf("%s: %w", o.Prompt, ErrNoSuite)
		}
	}
	return name, version, rel, suite, nil
}

// writePrivate writes a file of the private plugin, 0600 in 0700
// directories.
func writePrivate(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return os.WriteFile(p, b, 0o600)
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

// copySuite copies a suite's cases into dst: the regular files of the
// suite directory, without its past results; links are not followed
// (nor copied), and no file is executable in the copy. The suite's case
// files are data claude reads (prompts, graders, MCP mocks); a case's
// scaffold_script runs only with --scaffold, which sepad never passes.
// With only set, a case not named in it is left out (the suite's other
// files are copied).
func copySuite(src, dst string, only []string) error {
	files, total := 0, int64(0)
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			if filepath.ToSlash(rel) == "results" {
				return filepath.SkipDir
			}
			if only != nil && filepath.Dir(rel) == "." && rel != "." && !slices.Contains(only, rel) && isCase(p) {
				return filepath.SkipDir
			}
			return os.MkdirAll(filepath.Join(dst, rel), 0o700)
		}
		if !d.Type().IsRegular() {
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
		return os.WriteFile(filepath.Join(dst, rel), b, 0o600)
	})
}
