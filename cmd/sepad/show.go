package main

import (
	"fmt"
	"io"
)

func init() {
	register("show", "print a version's content: SKILL[@VERSION]", runShow)
}

func runShow(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	db, sk, pos, err := m.readSkill("show", "sepad show SKILL[@VERSION]", args, 1, stderr)
	if err != nil {
		return err
	}
	defer db.Close()
	_, ver := splitAt(pos[0])
	if ver == "" {
		ver = sk.Current
	}
	v, err := db.Version(sk.Key, ver)
	if err != nil {
		return err
	}
	if m.json {
		return writeJSON(stdout, v)
	}
	if !v.ContentKnown {
		return fmt.Errorf("v%d (%s) of %s was attributed by executions, but its content was never seen", v.Seq, v.Hash, sk.Name)
	}
	_, err = stdout.Write(v.Content)
	return err
}
