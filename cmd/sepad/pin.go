package main

import (
	"io"
	"net/url"
)

func init() {
	register("pin", "keep a skill at a version: sepad never rewrites its file or decides about it: SKILL [VERSION]", runPin)
	register("unpin", "let sepad decide about a pinned skill again: SKILL", runUnpin)
}

// runPin is `sepad pin SKILL [VERSION]`: POST /v1/skills/{skill}/pin,
// applied by the daemon's engine (or, with no daemon, by the CLI's own).
func runPin(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("pin", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return usageErrorf("usage: sepad pin SKILL [VERSION] (VERSION: vN or a hash; default the file's content now)")
	}
	path := "/v1/skills/" + pathArg(skillArgument(pos[0])) + "/pin"
	if len(pos) == 2 {
		path += "?" + url.Values{"version": {pos[1]}}.Encode()
	}
	return write(qf, path, nil, stdout)
}

// runUnpin is `sepad unpin SKILL`: POST /v1/skills/{skill}/unpin.
func runUnpin(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("unpin", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: sepad unpin SKILL")
	}
	return write(qf, "/v1/skills/"+pathArg(skillArgument(pos[0]))+"/unpin", nil, stdout)
}
