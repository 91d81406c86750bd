package main

import (
	"fmt"
	"io"
	"net/url"

	"github.com/sepad/sepad/client"
	"github.com/sepad/sepad/export"
	"github.com/sepad/sepad/render"
)

func init() {
	register("export", "export the stored executions as training or analysis data: --format csv|jsonl|reward|sft|preference", runExport)
}

// runExport is `sepad export`: GET /v1/export, streamed from the daemon
// (or from the database, read-only, with no daemon) to stdout or to -o
// FILE (written beside it and renamed when complete). See docs/export.md.
func runExport(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("export", stderr)
	var qf queryFlags
	qf.add(fs)
	format := fs.String("format", export.JSONL, "the `FORMAT`: csv, jsonl, reward, sft or preference")
	skill := fs.String("skill", "", "only this `SKILL` (a name, PROJECT#name or the prompt file's path)")
	since := fs.String("since", "", "only executions that ended since `WHEN`: a duration back from now (7d), a date or an RFC 3339 time")
	minValue := fs.String("min-value", "", "only executions whose value score is at least `V` (0 to 1, docs/value.md)")
	out := fs.String("o", "", "write to `FILE` instead of stdout")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments (give --skill to select one)")
	}
	v := url.Values{"format": {*format}}
	if *skill != "" {
		v.Set("skill", skillArgument(*skill))
	}
	if *since != "" {
		v.Set("since", *since)
	}
	if *minValue != "" {
		v.Set("min_value", *minValue)
	}
	c := client.New(qf.home, qf.config)
	defer c.Close()
	var stats *export.Stats
	if *out != "" {
		stats, err = c.StreamFile("/v1/export?"+v.Encode(), *out)
	} else {
		stats, err = c.Stream("/v1/export?"+v.Encode(), stdout)
	}
	if err != nil {
		return err
	}
	if stats != nil && stats.Written == 0 {
		// Nothing came out: say why, on stderr; it is not an error.
		fmt.Fprintf(stderr, "sepad export: %s\n", render.NothingExported(*format, *stats, *skill != "" || *since != "" || *minValue != ""))
	}
	return nil
}
