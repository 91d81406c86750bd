package promptfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ClaimName is the file, in a root's Claude directory (a project's
// .claude, or the Claude Code directory itself), that names the sepad
// home holding the root: one daemon writes a root's prompt files
// (docs/decisions.md, "One sepad per project"). Package mutation makes
// and honours the claims.
const ClaimName = ".sepad-home"

// ReleaseClaim removes the claim in claudeDir when it names home (another
// home's claim is that home's and stays): `sepad uninstall` leaves no
// file of sepad's in the project. It reports whether it removed one; with
// dryRun it removes nothing and reports whether it would.
func ReleaseClaim(claudeDir, home string, dryRun bool) (bool, error) {
	p := filepath.Join(claudeDir, ClaimName)
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	if filepath.Clean(strings.TrimSpace(string(b))) != filepath.Clean(home) {
		return false, nil
	}
	if dryRun {
		return true, nil
	}
	if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, err
	}
	return true, nil
}
