package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/sepad/sepad/config"
	"github.com/sepad/sepad/evalgate"
	"github.com/sepad/sepad/evals"
	"github.com/sepad/sepad/promptfile"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/spool"
)

// gateEdit is `sepad eval SKILL --gate [--baseline V|FILE]`: the eval
// gate on a person's edit, on request. The prompt file's text now is the
// candidate; the baseline is the version it replaces
// (evalgate.EditBaseline), or the version or file --baseline names. The
// gate is the skill's mutation.eval_gate, or, when that is off, the
// suite's own threshold and no drop below the baseline (max_drop 0). Both
// suite runs are recorded as evidence (source "sepad eval --gate"), as
// the daemon's gate records its own. Nothing is written to the prompt
// file: the verdict is printed, and the exit status is 0 when the gate
// holds, 1 when it refuses.
func gateEdit(qf queryFlags, claude, arg string, t evals.Target, text []byte, baselineArg string, stdout io.Writer) error {
	name, path := t.Name, t.Path
	if _, ok := evals.SuiteDir(path); !ok {
		return fmt.Errorf("%s (the gate): %s has no eval suite beside it (an evals directory beside its SKILL.md): the gate runs that suite (docs/claude-code.md, \"The eval gate\")", name, path)
	}
	cand := promptfile.Hash(text)
	versions := "/v1/skills/" + pathArg(skillArgument(arg)) + "/versions"
	base, err := evalgate.EditBaseline(cand, baselineArg, evalgate.Versions{
		List: func() (*query.SkillVersions, error) {
			var vs query.SkillVersions
			_, err := fetch(qf, versions, &vs)
			return &vs, err
		},
		Content: func(hash string) (*query.VersionContent, error) {
			var vc query.VersionContent
			_, err := fetch(qf, versions+"/"+pathArg(hash), &vc)
			return &vc, err
		},
	})
	if err != nil {
		return fmt.Errorf("%s (the gate): %w", name, err)
	}
	if base.Hash == cand {
		fmt.Fprintf(stdout, "%s: the file's text is %s: no edit to gate\n", name, base.Words)
		return nil
	}
	conf, err := config.Load(config.Path(qf.config))
	if err != nil {
		return err
	}
	home := qf.home
	if home == "" {
		home = spool.Home()
	}
	v, err := evalgate.Edit(context.Background(), claude, conf, home, t, base, text)
	if err != nil {
		return fmt.Errorf("%s (the gate): %w", name, err)
	}
	if qf.json {
		b, _ := json.Marshal(struct {
			Skill    string         `json:"skill"`
			Path     string         `json:"path"`
			Baseline string         `json:"baseline_words"`
			Verdict  *evals.Verdict `json:"verdict"`
		}{name, path, base.Words, v})
		if err := printJSON(stdout, b); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "%s: the edit %s against %s\n%s\n", name, cand, base.Words, v.Words)
	}
	if !v.Held {
		return &exitError{code: exitFail, err: fmt.Errorf("%s (the gate): the edit is refused: %s", name, v.Words)}
	}
	return nil
}
