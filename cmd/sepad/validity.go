package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/render"
	"github.com/sepad/sepad/validity"
)

func init() {
	register("validity", "how well each signal and the score agree with the labels sepad holds [SKILL]", runValidity)
}

// runValidity is `sepad validity [SKILL]`: GET /v1/validity.
func runValidity(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("validity", stderr)
	var qf queryFlags
	qf.add(fs)
	minLabels := fs.Int("min-labels", validity.DefaultMinLabels, "at least `N` verdicts for a verdict other than \"not enough labels\"")
	minEach := fs.Int("min-each", validity.DefaultMinEach, "at least `N` successes and failures each, likewise")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("takes at most one SKILL")
	}
	if *minLabels < 1 || *minEach < 1 {
		return usageErrorf("--min-labels and --min-each must be at least 1")
	}
	v := url.Values{"min_labels": {fmt.Sprint(*minLabels)}, "min_each": {fmt.Sprint(*minEach)}}
	if len(pos) == 1 {
		v.Set("skill", skillArgument(pos[0]))
	}
	return view(qf, stdout, "/v1/validity?"+v.Encode(), render.Validity)
}
