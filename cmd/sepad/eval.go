package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"time"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/spool"
)

func init() {
	register("eval", "run a skill's eval suite (claude plugin eval: its plugin's, or evals/ beside its SKILL.md) and record it as evidence for its version", runEval)
}

// runEval is `sepad eval SKILL [-- ARGS…]`: run the eval suite of the
// skill's plugin (or skills-dir plugin), or, for a skill in no plugin,
// the suite in the evals directory beside its SKILL.md, with `claude
// plugin eval --json` on a private plugin holding the text and the suite
// alone (evals.RunSuite), hashing the prompt file before and after, and
// record the result as evidence for that version (docs/claude-code.md, "Evals"). ARGS go to
// claude plugin eval (--runs N, --case GLOB, --threshold T, …).
func runEval(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var extra []string
	if i := slices.Index(args, "--"); i >= 0 {
		args, extra = args[:i], args[i+1:]
	}
	fs := newFlagSet("eval", stderr)
	var qf queryFlags
	qf.add(fs)
	claudeBin := fs.String("claude", "", "the Claude Code CLI `PROGRAM` (default $SEPAD_CLAUDE, else mutation.claude: claude on PATH)")
	gate := fs.Bool("gate", false, "gate the prompt file's text now (a person's edit) against its baseline with the eval gate, and print the verdict (exit 1 when refused)")
	baseline := fs.String("baseline", "", "with --gate: the `VERSION|FILE` to compare with, a version (vN, N or a hash prefix) or a file (default the version in force)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL (a name, a plugin's PLUGIN:NAME, or its prompt file's path)")
	}
	bin := config.ClaudeCLI(*claudeBin, config.Path(qf.config))
	t, err := evalTarget(qf, pos[0])
	if err != nil {
		return err
	}
	name, path := t.Name, t.Path
	if *gate && len(extra) > 0 {
		return usageErrorf("eval --gate takes no claude plugin eval arguments: the gate's are mutation.eval_gate's")
	}
	if !*gate && *baseline != "" {
		return usageErrorf("--baseline goes with --gate")
	}
	claudeDir, _ := prompt.ConfigDir()
	plugin, root, err := evals.SuiteOf(path, claudeDir)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if *gate {
		return gateEdit(qf, bin, pos[0], t, before, *baseline, stdout)
	}
	home := qf.home
	if home == "" {
		home = spool.Home()
	}
	// claude prints where its results and report are: under $SEPA_HOME,
	// not in the private plugin's directory removed after the run.
	keep := evals.KeepDir(home, name, time.Now())
	// Always a private plugin sepad builds, holding the text hashed
	// above and the suite, never the live directory (evals.RunSuite).
	ev, code, err := evals.RunSuite(context.Background(), evals.RunOptions{Claude: bin, Prompt: path, Plugin: root, Content: before, Args: extra, Progress: stderr, Keep: keep})
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	defer fmt.Fprintf(stderr, "claude's results and report are kept in %s\n", keep)
	err = evals.Record(home, ev, t, plugin, before, time.Now())
	if errors.Is(err, evals.ErrPartial) {
		render.Evidence(stdout, ev)
		return &exitError{code: max(code, exitFail), err: fmt.Errorf("%s: %w", name, err)}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if qf.json {
		b, _ := json.Marshal(ev)
		if err := printJSON(stdout, b); err != nil {
			return err
		}
	} else {
		render.Evidence(stdout, ev)
	}
	if code != 0 {
		return &exitError{code: code, err: fmt.Errorf("%s: the suite did not pass (claude plugin eval exited %d)", name, code)}
	}
	return nil
}

// evalTarget finds the skill's key, name and prompt file: from sepad's
// records when it has run, else from a path to its prompt file, whose
// key is then its path.
func evalTarget(qf queryFlags, arg string) (evals.Target, error) {
	var doc query.SkillDetail
	_, ferr := fetch(qf, "/v1/skills/"+pathArg(skillArgument(arg)), &doc)
	if ferr == nil && doc.Skill.Path != "" {
		return evals.Target{Key: doc.Skill.Key, Name: doc.Skill.Name, Path: doc.Skill.Path}, nil
	}
	p := skillArgument(arg)
	if n, ok := prompt.NameOfFile(p); ok {
		return evals.Target{Key: p, Name: n, Path: p}, nil
	}
	if ferr != nil {
		return evals.Target{}, fmt.Errorf("%s: %w (or give the prompt file's path)", arg, ferr)
	}
	return evals.Target{}, fmt.Errorf("%s: sepad knows no prompt file of it; give the prompt file's path", arg)
}

// importClaudeEval is `sepad import --claude-eval FILE SKILL`: record an
// existing aggregate-result.json as evidence for the skill's version. The
// result holds no content hash, so the version is the prompt file's
// content now, and a file changed since the suite started is refused.
func importClaudeEval(qf queryFlags, file string, pos []string, stdout io.Writer) error {
	if len(pos) != 1 {
		return usageErrorf("import --claude-eval FILE takes one SKILL (the skill the suite evaluated)")
	}
	ev, err := evals.ReadResult(file)
	if errors.Is(err, evals.ErrPartial) {
		return fmt.Errorf("import --claude-eval %w", err)
	}
	if err != nil {
		return err
	}
	t, err := evalTarget(qf, pos[0])
	if err != nil {
		return err
	}
	home := qf.home
	if home == "" {
		home = spool.Home()
	}
	err = evals.Import(home, ev, file, t, time.Now())
	if errors.Is(err, evals.ErrStale) {
		return fmt.Errorf("import --claude-eval %w; run `sepad eval %s` instead", err, t.Name)
	}
	if err != nil {
		return err
	}
	render.Evidence(stdout, ev)
	return nil
}
