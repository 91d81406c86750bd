package main

import (
	"fmt"
	"io"

	"github.com/sepad/sepad/status"
)

func init() {
	register("version", "print sepad's version, commit and Go version", runVersion)
}

// runVersion is `sepad version` (and `sepad --version`): this binary's
// build. The daemon's is in `sepad status` and GET /v1/version.
func runVersion(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := newFlagSet("version", stderr)
	asJSON := fs.Bool("json", false, "print the JSON document of GET /v1/version")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usageErrorf("takes no arguments")
	}
	b := status.ReadBuild()
	if *asJSON {
		return printIndented(stdout, b)
	}
	_, err = fmt.Fprintf(stdout, "sepad %s\n", b)
	return err
}
