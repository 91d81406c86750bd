package main

import (
	"io"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/store"
)

func init() {
	register("rollback", "restore an earlier version of a skill's file [--to VERSION]", runRollback)
	register("accept", "accept a skill's current version as its baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, true) })
	register("reject", "reject a skill's current version and roll back to the baseline", func(a []string, in io.Reader, o, e io.Writer) error { return runManual(a, o, e, false) })
}

func runRollback(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	var to string
	pos, err := m.parse("rollback", args, stderr, func(f *mutFlagSet) {
		f.fs.StringVar(&to, "to", "", "version to restore (vN or hash; default the baseline)")
	})
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: sepad rollback SKILL [--to VERSION]")
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.ManualRollback(sk.Key, to)
	}, stdout)
}

func runManual(args []string, stdout, stderr io.Writer, accept bool) error {
	var m mutFlags
	name := "reject"
	if accept {
		name = "accept"
	}
	pos, err := m.parse(name, args, stderr, nil)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usageErrorf("usage: sepad %s SKILL", name)
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.ManualDecision(sk.Key, accept)
	}, stdout)
}
