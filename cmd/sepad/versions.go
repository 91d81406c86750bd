package main

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/sepad/sepad/query"
)

func init() {
	register("versions", "list a skill's versions with their aggregates and status", runVersions)
}

// runVersions is `sepad versions SKILL`: GET /v1/skills/{skill}/versions.
func runVersions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("versions", stderr)
	var qf queryFlags
	qf.add(fs)
	teamView := fs.Bool("team", false, "every machine's runs pooled, with each machine's part, from the team database (SKILL: a name or a prompt_id)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("versions takes one SKILL")
	}
	if *teamView {
		return teamVersions(qf, pos[0], stdout)
	}
	var doc query.SkillVersions
	body, err := fetch(qf, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/versions", &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	printVersions(stdout, &doc)
	return nil
}

func printVersions(w io.Writer, doc *query.SkillVersions) {
	fmt.Fprintf(w, "%s (%s)  %s\n", doc.Skill.Name, orDash(doc.Skill.Project), doc.Skill.Key)
	tw := tabwriter.NewWriter(trimTrailing(w), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "VERSION\tHASH\tSTATUS\tN\tAGGREGATE\tGRADE\tVS PREVIOUS\tTOKENS/RUN\tFIRST SEEN")
	for _, r := range doc.Versions {
		v := fmt.Sprintf("v%d", r.Version)
		if r.Current {
			v += " *"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", v, r.Hash, fmtStatus(&r), r.N, fmtScore(r.Aggregate),
			fmtGrade(r.Grade), fmtChange(r.Change), fmtTokens(r.Tokens, r.TokenChange), fmtTimePtr(r.FirstSeen))
	}
	tw.Flush()
	printPending(w, doc.Versions)
	printEvals(w, doc.Versions)
	fmt.Fprintln(w, "* = the version in the file now; VS PREVIOUS = its aggregate minus the previous version's")
	fmt.Fprintln(w, "a decision compares a candidate's runs with its baseline's: `sepad decisions` says which")
}
