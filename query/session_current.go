package query

import (
	"github.com/sepad/sepad/prompt"
	"github.com/sepad/sepad/record"
)

// sessionInForce is InForce for a _session whose versions are manifests
// of instruction files (docs/executions.md): the version in force is the
// manifest of the files a session started in the project's root would
// load now, found as the hook finds them (prompt.ScanInstructions, the
// user's directory from $CLAUDE_CONFIG_DIR or ~/.claude). manifest is
// false for other skills and for a _session recorded before manifests
// (its versions are CLAUDE.md's contents). A session started in a
// subdirectory loads more files: its version is no row's then.
func sessionInForce(sk *record.Skill) (hash string, ok, manifest bool) {
	if sk.Kind != "session" || sk.Project == "" {
		return "", false, false
	}
	for i := range sk.Versions {
		if sk.Versions[i].Source == record.SourceManifest {
			manifest = true
			break
		}
	}
	if !manifest {
		return "", false, false
	}
	cfg, _ := prompt.ConfigDir() // "" when unknown: the project's files alone
	v, files := prompt.ScanInstructions(sk.Project, cfg)
	if len(files) == 0 {
		return "", false, true
	}
	return v, true, true
}
