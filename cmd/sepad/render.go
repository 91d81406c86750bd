package main

import (
	"net/url"

	"github.com/sepad/sepad/render"
)

// The cells the other commands' own lines share, from package render,
// which draws every table the CLI prints.
var (
	fmtVersion   = render.Version
	orDash       = render.OrDash
	trimTrailing = render.TrimTrailing
)

// pathArg escapes a skill argument as one URL path segment.
func pathArg(s string) string { return url.PathEscape(s) }
