package team

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Identity across machines (docs/team.md): a machine by an ID made once
// and kept in $SEPA_HOME, a person by a hash, a prompt by its repository
// and its path inside it. No absolute path of one machine identifies
// anything in the team store.

// MachineIDFile is the file in $SEPA_HOME that holds the machine ID.
const MachineIDFile = "machine-id"

// MachineID returns this machine's ID, making it on first use: 16 random
// bytes in hex, in home/machine-id (0600). Two sepad homes on one
// computer are two machines.
func MachineID(home string) (string, error) {
	p := filepath.Join(home, MachineIDFile)
	if b, err := os.ReadFile(p); err == nil {
		id := strings.TrimSpace(string(b))
		if len(id) == 32 {
			if _, err := hex.DecodeString(id); err == nil {
				return id, nil
			}
		}
		return "", fmt.Errorf("%s: not a machine ID (32 hex digits); remove it to make a new one", p)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	var raw [16]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", err
	}
	id := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return MachineID(home) // made meanwhile by another process
	}
	if err != nil {
		return "", err
	}
	if _, err := f.WriteString(id + "\n"); err != nil {
		f.Close()
		return "", err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return "", err
	}
	return id, f.Close()
}

// Person resolves team.person: "off" is no person, "auto" (or "") the
// sha256 of git's user.email (lower case), anything else is used as
// written.
func Person(setting string) string {
	switch setting {
	case "off":
		return ""
	case "", "auto":
		out, err := gitOutput("", "config", "--get", "user.email")
		if err != nil || out == "" {
			return ""
		}
		return HashPerson(out)
	}
	return setting
}

// HashPerson is the person ID of an e-mail address: the first 16 bytes of
// its sha256, in hex.
func HashPerson(email string) string {
	sum := sha256.Sum256([]byte(strings.ToLower(strings.TrimSpace(email))))
	return hex.EncodeToString(sum[:16])
}

// Prompt is a prompt's identity in the team store.
type Prompt struct {
	// ID is Repository + ":" + Path for a prompt file inside a
	// repository with an origin, else Kind + "/" + Name (user-level
	// prompts, and prompts of repositories without an origin).
	ID         string `json:"prompt_id"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Repository string `json:"repository,omitempty"`
	Path       string `json:"path,omitempty"`
}

// Resolver finds prompts' identities, remembering each directory's
// repository (one git call per repository, not per execution).
type Resolver struct {
	// ClaudeDir is the user's Claude Code directory: prompts under it are
	// user-level, whatever repository it may be.
	ClaudeDir string

	mu    sync.Mutex
	roots map[string]repo // directory → its repository ("" origin: none)
}

type repo struct{ root, origin string }

// Prompt returns the identity of the prompt kind/name, whose file is
// file (may be "") in project (may be "").
func (r *Resolver) Prompt(kind, name, file, project string) Prompt {
	p := Prompt{Kind: kind, Name: name, ID: kind + "/" + name}
	if file != "" && filepath.IsAbs(file) && !within(r.ClaudeDir, file) {
		if rp := r.repoOf(filepath.Dir(file)); rp.origin != "" {
			if rel, err := filepath.Rel(rp.root, file); err == nil && !strings.HasPrefix(rel, "..") {
				p.Repository, p.Path = rp.origin, filepath.ToSlash(rel)
				p.ID = p.Repository + ":" + p.Path
				return p
			}
		}
	}
	if file == "" && project != "" && filepath.IsAbs(project) {
		// A prompt without a file of its own (a session's instructions):
		// the repository and the kind and name.
		if rp := r.repoOf(project); rp.origin != "" {
			p.Repository = rp.origin
			p.ID = p.Repository + "#" + p.ID
		}
	}
	return p
}

func within(root, p string) bool {
	if root == "" {
		return false
	}
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

func (r *Resolver) repoOf(dir string) repo {
	dir = filepath.Clean(dir)
	r.mu.Lock()
	if rp, ok := r.roots[dir]; ok {
		r.mu.Unlock()
		return rp
	}
	r.mu.Unlock()
	var rp repo
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			rp.root = d
			if out, err := gitOutput(d, "config", "--get", "remote.origin.url"); err == nil {
				rp.origin = NormaliseRemote(out)
			}
			break
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	r.mu.Lock()
	if r.roots == nil {
		r.roots = map[string]repo{}
	}
	r.roots[dir] = rp
	r.mu.Unlock()
	return rp
}

// NormaliseRemote turns a git remote URL into the repository's name in the
// team store: host and path, lower-case host, no user, password, port,
// scheme or ".git" (git@github.com:Org/x.git and
// https://u:p@github.com/Org/x are both github.com/Org/x). A local path
// stays a path (file:///srv/git/x): every clone of it names it so.
func NormaliseRemote(remote string) string {
	s := strings.TrimSpace(remote)
	if s == "" {
		return ""
	}
	trim := func(p string) string {
		p = strings.TrimSuffix(strings.Trim(p, "/"), ".git")
		return strings.Trim(path.Clean("/"+p), "/")
	}
	if !strings.Contains(s, "://") {
		if i := strings.Index(s, ":"); i > 0 && !strings.ContainsAny(s[:i], `/\`) && !(i == 1 && len(s) > 2 && (s[2] == '\\' || s[2] == '/')) {
			host := s[:i]
			if at := strings.LastIndex(host, "@"); at >= 0 {
				host = host[at+1:]
			}
			return strings.ToLower(host) + "/" + trim(s[i+1:])
		}
		return "file:///" + trim(filepath.ToSlash(s))
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	if u.Scheme == "file" || u.Host == "" {
		return "file:///" + trim(u.Path)
	}
	return strings.ToLower(u.Hostname()) + "/" + trim(u.Path)
}

// gitOutput runs git in dir (none: the current directory) with a short
// deadline and returns its trimmed output.
func gitOutput(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if dir != "" {
		args = append([]string{"-C", dir}, args...)
	}
	cmd := exec.CommandContext(ctx, "git", args...)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.String()), nil
}
