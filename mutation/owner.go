package mutation

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/sepad/sepad/promptfile"
)

// One daemon per prompt file: the first sepad home that acts on a root
// (a project, or the user's Claude directory) holds it, recorded in
// ownerName inside the root's .claude directory. A daemon or command of
// another home never writes there while the holding home exists; it
// records a conflict naming that home instead.
const ownerName = promptfile.ClaimName

// ownerFile is the claim file of a write root.
func (e *Engine) ownerFile(root string) string {
	if root == filepath.Clean(e.opts.ClaudeDir) {
		return filepath.Join(root, ownerName)
	}
	return filepath.Join(root, ".claude", ownerName)
}

// rootOf returns the write root holding path: the longest one it is in.
func rootOf(path string, roots []string) string {
	best := ""
	for _, r := range roots {
		if promptfile.Under(path, []string{r}) && len(r) > len(best) {
			best = r
		}
	}
	return best
}

// heldElsewhere reports the other sepad home holding the root of path,
// claiming the root for this engine's home when nobody holds it (or its
// holder is gone: its directory has no database any more). "" means this
// home may write. Without a home (tests, tools) there are no claims.
func (e *Engine) heldElsewhere(path string, roots []string) (other, claim string) {
	home := e.opts.Home
	root := rootOf(path, roots)
	if home == "" || root == "" {
		return "", ""
	}
	home = filepath.Clean(home)
	claim = e.ownerFile(root)
	for range 2 {
		b, err := os.ReadFile(claim)
		if err == nil {
			h := filepath.Clean(strings.TrimSpace(string(b)))
			if h == home {
				return "", claim
			}
			if _, err := os.Stat(filepath.Join(h, "sepa.db")); err == nil && h != "." {
				return h, claim
			}
			// The holder is gone: take the root over.
			if err := os.WriteFile(claim, []byte(home+"\n"), 0o644); err != nil {
				e.log.Warn("cannot claim a root", "root", root, "err", err)
			}
			return "", claim
		}
		if !errors.Is(err, fs.ErrNotExist) {
			e.log.Warn("cannot read a root's claim", "file", claim, "err", err)
			return "", claim
		}
		if err := os.MkdirAll(filepath.Dir(claim), 0o755); err != nil {
			return "", claim
		}
		f, err := os.OpenFile(claim, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue // another home claimed it just now: read its claim
		}
		if err != nil {
			e.log.Warn("cannot claim a root", "root", root, "err", err)
			return "", claim
		}
		_, err = f.WriteString(home + "\n")
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			e.log.Warn("cannot claim a root", "root", root, "err", err)
		}
		return "", claim
	}
	return "", claim
}

// heldWords says who holds a root and how to hand it over.
func heldWords(path, other, claim string) string {
	return fmt.Sprintf("%s belongs to the sepad home %s (%s), which acts on this project: this home does not write there; "+
		"stop using one of the two, or remove %s to hand the project over", path, other, claim, claim)
}

// claimRoots claims, at start, every write root that holds prompt files
// and logs the ones another home holds, so a person learns of it before
// any decision.
func (e *Engine) claimRoots() {
	if e.opts.Home == "" {
		return
	}
	for _, r := range e.WriteRoots() {
		if _, err := os.Stat(filepath.Join(r, ".claude")); err != nil && r != filepath.Clean(e.opts.ClaudeDir) {
			continue // no prompt files yet: claimed at the first write
		}
		if fi, err := os.Stat(r); err != nil || !fi.IsDir() {
			continue
		}
		probe := filepath.Join(r, ".claude", "x")
		if r == filepath.Clean(e.opts.ClaudeDir) {
			probe = filepath.Join(r, "x")
		}
		if other, claim := e.heldElsewhere(probe, []string{r}); other != "" {
			e.log.Warn("another sepad home holds this project: this daemon will not write there", "root", r, "holder", other, "claim", claim)
		}
	}
}
