package query

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/sepad/sepad/record"
)

// maxPromptFile bounds what is read of a prompt file to hash it: a prompt
// file is a few kilobytes; a larger one holds no version sepad recorded.
const maxPromptFile = 8 << 20

// promptFile is the file a skill's versions are the contents of.
func promptFile(sk *record.Skill) string {
	if sk.Kind == "session" {
		if sk.Project == "" {
			return ""
		}
		return filepath.Join(sk.Project, "CLAUDE.md")
	}
	return sk.Path
}

// InForce returns the hash of the version the skill's file holds now:
// the views answer with the file's content, not with the version that ran
// last (an edit in the middle of a session is in force before it runs).
// ok is false when the file cannot be read (no path, or gone): the caller
// falls back to the store's current version. A file holding content no
// version has gives a hash that matches no row: no row is current.
func InForce(sk *record.Skill) (hash string, ok bool) {
	if h, ok, manifest := sessionInForce(sk); manifest {
		return h, ok
	}
	p := promptFile(sk)
	if p == "" {
		return "", false
	}
	f, err := os.Open(p)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	h := sha256.New()
	n, err := io.Copy(h, io.LimitReader(f, maxPromptFile+1))
	if err != nil && !errors.Is(err, fs.ErrClosed) {
		return "", false
	}
	if n > maxPromptFile {
		return "unrecorded", true
	}
	return hex.EncodeToString(h.Sum(nil)[:6]), true
}
