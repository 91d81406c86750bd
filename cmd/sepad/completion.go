package main

import (
	"errors"
	"flag"
	"io"
	"sort"
	"strings"

	"github.com/sepad/sepad/render"
)

func init() {
	register("completion", "print a shell completion script: bash, zsh or fish", runCompletion)
}

// runCompletion is `sepad completion bash|zsh|fish`, and `sepad completion
// --skills` (the skill names, one per line, for the scripts).
func runCompletion(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("completion", stderr)
	var qf queryFlags
	qf.add(fs)
	skills := fs.Bool("skills", false, "print the known skill names, one per line (the scripts call this)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if qf.json {
		return usageErrorf("--json does not apply: completion prints a shell script (--skills: the skill names, one per line)")
	}
	if *skills {
		body, err := fetch(qf, "/v1/skills", nil)
		if err != nil {
			return err
		}
		doc, err := render.DecodeGrades(body) // a tab press waits for it
		if err != nil {
			return err
		}
		render.SkillNames(stdout, doc)
		return nil
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SHELL: bash, zsh or fish")
	}
	cmds, flags := commandFlags()
	cp := render.Completion{Commands: cmds, Summaries: summaries(), Flags: flags}
	switch pos[0] {
	case "bash":
		return cp.Bash(stdout, false)
	case "zsh":
		return cp.Bash(stdout, true)
	case "fish":
		return cp.Fish(stdout)
	}
	return usageErrorf("no shell %q; want bash, zsh or fish", pos[0])
}

// commandFlags returns the commands and each one's flags (--name), read
// from the flag sets the commands define (as `sepad help` does).
func commandFlags() ([]string, map[string][]string) {
	var cmds []string
	flags := map[string][]string{}
	for name, c := range commands {
		cmds = append(cmds, name)
		if name == "hook" || name == "help" || name == "completion" {
			continue
		}
		err := c.run([]string{"--help"}, strings.NewReader(""), io.Discard, io.Discard)
		var hr *helpRequest
		if errors.As(err, &hr) {
			hr.fs.VisitAll(func(f *flag.Flag) { flags[name] = append(flags[name], "--"+f.Name) })
		}
	}
	flags["completion"] = []string{"--skills", "--home"}
	sort.Strings(cmds)
	return cmds, flags
}
