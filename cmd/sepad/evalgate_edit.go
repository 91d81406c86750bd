package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evalgate"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/spool"
)

// gateEdit is `sepad eval SKILL --gate [--baseline V|FILE]`: the eval
// gate on a person's edit, on request. The prompt file's text now is the
// candidate; the baseline is the version it replaces (gateBaseline), or
// the version or file --baseline names. The gate is the skill's
// mutation.eval_gate, or, when that is off, the suite's own threshold and
// no drop below the baseline (max_drop 0). Both suite runs are recorded
// as evidence (source "sepad eval --gate"), as the daemon's gate records
// its own. Nothing is written to the prompt file: the verdict is printed,
// and the exit status is 0 when the gate holds, 1 when it refuses.
func gateEdit(qf queryFlags, claude, arg string, t evals.Target, text []byte, baselineArg string, stdout io.Writer) error {
	name, path := t.Name, t.Path
	if _, ok := evals.SuiteDir(path); !ok {
		return fmt.Errorf("%s (the gate): %s has no eval suite beside it (an evals directory beside its SKILL.md): the gate runs that suite (docs/claude-code.md, \"The eval gate\")", name, path)
	}
	cand := promptfile.Hash(text)
	baseHash, baseWords, baseText, err := gateBaseline(qf, arg, cand, baselineArg)
	if err != nil {
		return fmt.Errorf("%s (the gate): %w", name, err)
	}
	if baseHash == cand {
		fmt.Fprintf(stdout, "%s: the file's text is %s: no edit to gate\n", name, baseWords)
		return nil
	}
	conf, err := config.Load(config.Path(qf.config))
	if err != nil {
		return err
	}
	g := evalgate.ForEdit(conf, name)
	home := qf.home
	if home == "" {
		home = spool.Home()
	}
	ctx, cancel := context.WithTimeout(context.Background(), evalgate.Timeout(g))
	defer cancel()
	v, err := evalgate.Suite(ctx, claude, g, home, mutation.GateCandidate{SkillKey: t.Key, Skill: name, Path: path,
		Baseline: baseHash, BaselineContent: baseText, Candidate: cand, Content: text}, "sepad eval --gate")
	if err != nil {
		return fmt.Errorf("%s (the gate): %w", name, err)
	}
	if after, err := os.ReadFile(path); err != nil || promptfile.Hash(after) != cand {
		return fmt.Errorf("%s (the gate): %s: %w", name, path, evals.ErrChanged)
	}
	if qf.json {
		b, _ := json.Marshal(struct {
			Skill    string         `json:"skill"`
			Path     string         `json:"path"`
			Baseline string         `json:"baseline_words"`
			Verdict  *evals.Verdict `json:"verdict"`
		}{name, path, baseWords, v})
		if err := printJSON(stdout, b); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s: the edit %s against %s\n%s\n", name, cand, baseWords, v.Words)
	}
	if !v.Held {
		return &exitError{code: exitFail, err: fmt.Errorf("%s (the gate): the edit is refused: %s", name, v.Words)}
	}
	return nil
}

// gateBaseline finds the baseline of an edit whose text hashes to cand:
// the version or file want names, else, among sepad's versions of the
// skill that are not cand, the newest baseline, accepted or pinned one,
// else the newest that ran, else the one in force, else the newest. It returns the baseline's hash,
// words for it and its text ("" text when only its recorded eval score
// can stand for it).
func gateBaseline(qf queryFlags, arg, cand, want string) (hash, words string, text []byte, err error) {
	if want != "" {
		if fi, err := os.Stat(want); err == nil && fi.Mode().IsRegular() {
			b, err := os.ReadFile(want)
			if err != nil {
				return "", "", nil, err
			}
			h := promptfile.Hash(b)
			return h, "the baseline " + h + " (" + want + ")", b, nil
		}
	}
	var vs query.SkillVersions
	if _, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(arg))+"/versions", &vs); err != nil {
		return "", "", nil, fmt.Errorf("%w (or give --baseline FILE, the text to compare with)", err)
	}
	pick, err := evalgate.PickBaseline(&vs, cand, want)
	if err != nil {
		return "", "", nil, err
	}
	if pick.Hash == cand && want == "" { // PickBaseline found no other
		return cand, fmt.Sprintf("v%d (%s, %s), the only version sepad knows", pick.Version, pick.Hash, orDash(pick.Status)), nil, nil
	}
	words = fmt.Sprintf("v%d (%s, %s)", pick.Version, pick.Hash, orDash(pick.Status))
	var vc query.VersionContent
	if _, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(arg))+"/versions/"+pathArg(pick.Hash), &vc); err != nil {
		return "", "", nil, err
	}
	if vc.ContentKnown {
		text = []byte(vc.Content)
	}
	return pick.Hash, words, text, nil
}
