package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
)

func init() {
	register("show", "print a version's content: SKILL[@VERSION]", runShow)
}

// runShow is `sepad show SKILL[@VERSION]`: GET
// /v1/skills/{skill}/versions/{version} ("current" when no version is
// given).
func runShow(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("show", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL[@VERSION]")
	}
	skill, ver := splitAt(pos[0])
	if ver == "" {
		ver = "current"
	}
	var doc query.VersionContent
	body, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(skill))+"/versions/"+pathArg(ver), &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	if !doc.ContentKnown {
		return fmt.Errorf("v%d (%s) of %s was named by executions, but sepad never read the file while it held it: its content is unknown",
			doc.Version.Version, doc.Version.Hash, query.DisplayName(doc.Skill.Name))
	}
	if doc.Files != nil {
		render.Files(stdout, &doc)
		return nil
	}
	_, err = io.WriteString(stdout, doc.Content)
	return err
}

// splitAt splits SKILL@VERSION; a path holding @ keeps it when no version
// follows the last one.
func splitAt(arg string) (string, string) {
	if i := strings.LastIndex(arg, "@"); i > 0 && !strings.ContainsAny(arg[i+1:], "/\\") {
		return arg[:i], arg[i+1:]
	}
	return arg, ""
}
