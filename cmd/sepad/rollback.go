package main

import (
	"io"
	"net/url"
)

func init() {
	register("rollback", "restore an earlier version of a skill's file [--to VERSION]", runRollback)
	register("accept", "accept a skill's current version as its baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, true) })
	register("reject", "reject a skill's current version and roll back to the baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, false) })
}

// runRollback is `sepad rollback SKILL [--to VERSION]`: POST
// /v1/skills/{skill}/rollback?to=VERSION, applied by the daemon's engine.
func runRollback(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("rollback", stderr)
	var qf queryFlags
	qf.add(fs)
	to := fs.String("to", "", "the `VERSION` to restore (vN or a hash; default the baseline, else the best graded version)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("takes one SKILL")
	}
	path := "/v1/skills/" + pathArg(skillArgument(pos[0])) + "/rollback"
	if *to != "" {
		path += "?" + url.Values{"to": {*to}}.Encode()
	}
	return write(qf, path, nil, stdout)
}

// runManual is `sepad accept SKILL` and `sepad reject SKILL`: POST
// /v1/skills/{skill}/accept or /reject.
func runManual(args []string, stdout, stderr io.Writer, accept bool) error {
	name := "reject"
	if accept {
		name = "accept"
	}
	fs := newFlagSet(name, stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("%s takes one SKILL", name)
	}
	return write(qf, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/"+name, nil, stdout)
}
