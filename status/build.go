package status

import (
	"runtime"
	"runtime/debug"
	"sync"
)

// Build is what a sepad binary was built from: `sepad version`, GET
// /v1/version, the daemon in /v1/status and sepad_build_info.
type Build struct {
	// Version is the module version: a tag (v1.2.3), a pseudo-version
	// for a build from a clone (v0.0.0-20261124050000-abcdef123456, with
	// +dirty when it had changes), or "(devel)".
	Version string `json:"version"`
	// Commit and CommitTime are the VCS revision the binary was built
	// from ("" when built outside a repository); Modified says the tree
	// had changes.
	Commit     string `json:"commit"`
	CommitTime string `json:"commit_time,omitempty"`
	Modified   bool   `json:"modified"`
	// Go is the Go version it was built with, Platform GOOS/GOARCH.
	Go       string `json:"go"`
	Platform string `json:"platform"`
}

var (
	buildOnce sync.Once
	build     Build
)

// ReadBuild returns the running binary's build information, from the
// module and VCS information the Go toolchain embeds.
func ReadBuild() Build {
	buildOnce.Do(func() {
		build = Build{Version: "(unknown)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
		bi, ok := debug.ReadBuildInfo()
		if !ok {
			return
		}
		if bi.Main.Version != "" {
			build.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				build.Commit = s.Value
			case "vcs.time":
				build.CommitTime = s.Value
			case "vcs.modified":
				build.Modified = s.Value == "true"
			}
		}
	})
	return build
}

// String is the one-line form: "v1.2.3 (commit abcdef123456, 2026-11-24T05:00:00Z, modified) go1.25.0 linux/amd64".
func (b Build) String() string {
	s := b.Version
	if b.Commit != "" {
		c := b.Commit
		if len(c) > 12 {
			c = c[:12]
		}
		s += " (commit " + c
		if b.CommitTime != "" {
			s += ", " + b.CommitTime
		}
		if b.Modified {
			s += ", modified"
		}
		s += ")"
	}
	return s + " " + b.Go + " " + b.Platform
}
