package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/query"
	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/reward"
)

func init() {
	register("label", "give an execution a verdict: EXECUTION|last success|failure [--score 0..1] [--note] [--rater|--model] [--rubric-version]", runLabel)
}

// runLabel is `sepad label EXECUTION|last [--skill S] success|failure
// [--score X] [--note T] [--rater NAME | --model ID] [--rubric-version V]`:
// POST /v1/executions/{id}/label, applied by the daemon's engine (or, with
// no daemon, by the CLI's own), like accept and reject.
func runLabel(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("label", stderr)
	var qf queryFlags
	qf.add(fs)
	skill := fs.String("skill", "", "with last: the newest execution of this `SKILL`; with an ID: check it is of this skill")
	var in reward.Input
	fs.Func("score", "the verdict's `SCORE` in [0, 1], clamped (default: success 1, failure 0)", func(s string) error {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("%q is not a number", s)
		}
		in.Score = &v
		return nil
	})
	fs.StringVar(&in.Note, "note", "", "why: a `NOTE` kept with the label")
	fs.StringVar(&in.Rater, "rater", "", "who judged (a person's `NAME`): grader kind human")
	fs.StringVar(&in.Model, "model", "", "which model judged (its `ID`): grader kind model")
	fs.StringVar(&in.RubricVersion, "rubric-version", "", "the rubric or policy the verdict followed, its `VERSION` (needed for SFT and preference exports)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usageErrorf("usage: sepad label EXECUTION|last [--skill S] success|failure [--score 0..1] [--note TEXT] [--rater NAME | --model ID] [--rubric-version V]")
	}
	in.Outcome = strings.ToLower(pos[1])
	if in.Outcome != reward.Success && in.Outcome != reward.Failure {
		return usageErrorf("%q is not success or failure", pos[1])
	}
	if in.Rater != "" && in.Model != "" {
		return usageErrorf("give --rater (a person) or --model (a model id), not both")
	}
	body, err := json.Marshal(in)
	if err != nil {
		return err
	}
	path := "/v1/executions/" + pathArg(pos[0]) + "/label"
	if *skill != "" {
		path += "?" + url.Values{"skill": {skillArgument(*skill)}}.Encode()
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	b, err := c.Post(path, body)
	if here, ok := qf.here(path, err); ok {
		b, err = c.Post(here, body)
	}
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, b)
	}
	var a query.LabelAnswer
	if err := json.Unmarshal(b, &a); err != nil {
		return fmt.Errorf("malformed answer: %w", err)
	}
	fmt.Fprintln(stdout, a.Words)
	render.Derived(stdout, &a.Label)
	return nil
}
