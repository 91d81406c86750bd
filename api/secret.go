package api

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
)

// SecretName is the file in $SEPA_HOME holding the TCP API's secret.
const SecretName = "http.secret"

// SecretEnv is the environment variable Claude Code's http hook handlers
// read the secret from (`sepad install --transport http` writes
// "Authorization": "Bearer $SEPAD_SECRET" with allowedEnvVars).
const SecretEnv = "SEPAD_SECRET"

// secretBytes is the secret's entropy: 32 random bytes, 64 hex digits.
const secretBytes = 32

// Errors callers branch on.
var (
	// ErrBadSecretFile: the secret file exists but is not a private
	// regular file holding a secret (others can read it, or it was
	// edited into something else).
	ErrBadSecretFile = errors.New("unusable secret file")
)

// SecretPath is the secret file of a state directory.
func SecretPath(home string) string { return filepath.Join(home, SecretName) }

// LoadSecret reads the secret of home. A missing file is fs.ErrNotExist;
// a file others can read or write, or that holds no secret, is
// ErrBadSecretFile (never used: whoever could read it could call the API).
func LoadSecret(home string) (string, error) {
	p := SecretPath(home)
	f, err := os.OpenFile(p, os.O_RDONLY|oNoFollow, 0)
	if err != nil {
		return "", fmt.Errorf("read the API secret: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("read the API secret: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: %w: not a regular file", p, ErrBadSecretFile)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return "", fmt.Errorf("%s: %w: mode %v lets other users read it; delete it and restart sepad to make a new one", p, ErrBadSecretFile, fi.Mode().Perm())
	}
	b := make([]byte, 4*secretBytes)
	n, _ := f.Read(b)
	s := strings.TrimSpace(string(b[:n]))
	if len(s) < 2*secretBytes || strings.ContainsAny(s, " \t\r\n") {
		return "", fmt.Errorf("%s: %w: it does not hold a secret of %d hex digits", p, ErrBadSecretFile, 2*secretBytes)
	}
	return s, nil
}

// LoadOrCreateSecret returns the secret of home, creating it (32 random
// bytes as hex, mode 0600, O_EXCL so that two processes agree on one) when
// there is none.
func LoadOrCreateSecret(home string) (string, error) {
	s, err := LoadSecret(home)
	if !errors.Is(err, fs.ErrNotExist) {
		return s, err
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return "", fmt.Errorf("create the API secret: %w", err)
	}
	raw := make([]byte, secretBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", fmt.Errorf("create the API secret: %w", err)
	}
	s = hex.EncodeToString(raw)
	p := SecretPath(home)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL|oNoFollow, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadSecret(home) // another process made it first
	}
	if err != nil {
		return "", fmt.Errorf("create the API secret: %w", err)
	}
	_, err = f.WriteString(s + "\n")
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
		return "", fmt.Errorf("create the API secret %s: %w", p, err)
	}
	return s, nil
}

// BearerToken returns the token of an "Authorization: Bearer TOKEN"
// header ("" when there is none).
func BearerToken(r *http.Request) string {
	h := r.Header.Get("Authorization")
	if len(h) < 7 || !strings.EqualFold(h[:7], "bearer ") {
		return ""
	}
	return strings.TrimSpace(h[7:])
}

// requireSecret answers 401 to a request without the secret, compared in
// constant time, and counts it (onDenied may be nil).
func requireSecret(secret string, onDenied func(), h http.Handler) http.Handler {
	want := []byte(secret)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(BearerToken(r))
		if secret == "" || subtle.ConstantTimeCompare(got, want) != 1 {
			if onDenied != nil {
				onDenied()
			}
			w.Header().Set("WWW-Authenticate", `Bearer realm="sepad"`)
			writeError(w, http.StatusUnauthorized, fmt.Errorf("the TCP API needs \"Authorization: Bearer <secret>\"; the secret is in %s (docs/security.md)", "$SEPA_HOME/"+SecretName), nil)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// secretMatches compares a presented secret with the server's in
// constant time; an empty server secret matches nothing.
func secretMatches(secret, got string) bool {
	return secret != "" && subtle.ConstantTimeCompare([]byte(got), []byte(secret)) == 1
}
