package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/sepad/sepad/mutation"
	"github.com/sepad/sepad/store"
)

func init() {
	register("propose", "hand in a mutator's new text for a skill: SKILL FILE", runPropose)
}

func runPropose(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	var strategy string
	pos, err := m.parse("propose", args, stderr, func(f *mutFlagSet) {
		f.fs.StringVar(&strategy, "strategy", "", "name of the mutation strategy, recorded")
	})
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("usage: sepad propose SKILL FILE (- for stdin) [--strategy NAME]")
	}
	var text []byte
	if pos[1] == "-" {
		text, err = io.ReadAll(bufio.NewReader(stdin))
	} else {
		text, err = os.ReadFile(pos[1])
	}
	if err != nil {
		return fmt.Errorf("read proposal: %w", err)
	}
	return m.withEngine(func(e *mutation.Engine, db *store.DB) (mutation.Record, error) {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return mutation.Record{}, err
		}
		return e.Propose(sk.Key, text, strategy, mutation.DefaultProposalOptions())
	}, stdout)
}
