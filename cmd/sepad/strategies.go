package main

import (
	"fmt"
	"io"
	"net/url"
	"text/tabwriter"

	"github.com/sepad/sepad/api"
)

func init() {
	register("strategies", "mutation strategies: uses, improvements and mean delta [SKILL]", runStrategies)
}

// runStrategies is `sepad strategies [SKILL]`: GET /v1/strategies.
func runStrategies(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("strategies", stderr)
	var qf queryFlags
	qf.add(fs)
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usageErrorf("strategies takes at most one SKILL")
	}
	path := "/v1/strategies"
	if len(pos) == 1 {
		path += "?" + url.Values{"skill": {skillArgument(pos[0])}}.Encode()
	}
	var doc api.StrategiesView
	body, err := fetch(qf, path, &doc)
	if err != nil {
		return err
	}
	if qf.json {
		return printJSON(stdout, body)
	}
	tw := tabwriter.NewWriter(trimTrailing(stdout), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "STRATEGY\tRISK\tUSES\tFAILED\tDECIDED\tIMPROVED\tMEAN Δ\tCOST\tWEIGHT")
	for _, s := range doc.Strategies {
		delta := "-"
		if s.Decided > 0 {
			delta = fmt.Sprintf("%+.2f", s.MeanDelta)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%d\t%s\t$%.4f\t%.2f\n", s.Strategy, s.Risk, s.Uses, s.Failed, s.Decided, s.Improvements, delta, s.CostUSD, s.Weight)
	}
	return tw.Flush()
}
