package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/sepad/sepad/mutation"
)

func init() {
	register("decisions", "list decisions, rollbacks and conflicts [SKILL]", runDecisions)
}

func runDecisions(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	var m mutFlags
	pos, err := m.parse("decisions", args, stderr, nil)
	if err != nil {
		return err
	}
	db, err := m.openStore(false)
	if err != nil {
		return err
	}
	defer db.Close()
	key := ""
	if len(pos) > 0 {
		sk, err := findSkill(db, pos[0])
		if err != nil {
			return err
		}
		key = sk.Key
	}
	ds, err := db.Decisions(key, 0)
	if err != nil {
		return err
	}
	var recs []mutation.Record
	for _, d := range ds {
		var r mutation.Record
		if err := json.Unmarshal(d.Payload, &r); err == nil {
			recs = append(recs, r)
		}
	}
	if m.json {
		return writeJSON(stdout, map[string]any{"decisions": recs})
	}
	if len(recs) == 0 {
		fmt.Fprintln(stdout, "no decisions yet")
		return nil
	}
	for _, r := range recs {
		applied := ""
		if !r.Applied {
			applied = " (not applied)"
		}
		fmt.Fprintf(stdout, "%s  %-8s %-10s %-26s%s\n    %s\n", r.Time.Format("2006-01-02 15:04:05"), r.Skill, r.Kind, r.Rule, applied, r.Words)
	}
	return nil
}
