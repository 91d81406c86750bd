package doctor

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/sepad/sepad/api"
	"github.com/sepad/sepad/hooks/settings"
)

// checkHTTP checks every http handler of sepad that applies to the
// project: the URL answers, and with the secret Claude Code would send
// (its header, $SEPAD_SECRET taken from this environment, as Claude Code
// takes it from the environment it starts in) the daemon accepts it. A
// dead URL, an unset variable or a refused secret is a FAIL: every event
// would be lost.
func (d *doctor) checkHTTP(project, home string) {
	abs, _ := filepath.Abs(project)
	files := []string{filepath.Join(abs, ".claude", "settings.json"), filepath.Join(abs, ".claude", "settings.local.json")}
	cd := os.Getenv("CLAUDE_CONFIG_DIR") // where Claude Code reads the user's settings
	if uh, err := os.UserHomeDir(); cd == "" && err == nil {
		cd = filepath.Join(uh, ".claude")
	}
	if cd != "" {
		files = append([]string{filepath.Join(cd, "settings.json")}, files...)
	}
	type target struct {
		url, header string
		allowed     []string
	}
	var targets []target
	sessionStartHTTP := false
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		hs, err := settings.Find(b)
		if err != nil {
			continue // checkSettings reports it
		}
		for _, h := range hs {
			if h.Transport != "http" {
				continue
			}
			if h.Event == "SessionStart" {
				sessionStartHTTP = true
			}
			t := target{url: h.URL, header: h.Headers["Authorization"], allowed: h.AllowedEnvVars}
			if !slices.ContainsFunc(targets, func(o target) bool { return o.url == t.url && o.header == t.header }) {
				targets = append(targets, t)
			}
		}
	}
	if len(targets) == 0 {
		return
	}
	if sessionStartHTTP {
		d.warn("SessionStart is sent to an http hook, and Claude Code never sends SessionStart to http hooks",
			"run `sepad install --transport http --url URL` again: it installs the command hook for SessionStart")
	}
	for _, t := range targets {
		auth, problem := interpolate(t.header, t.allowed)
		if problem != "" {
			d.fail(fmt.Sprintf("the http hook to %s: %s", t.url, problem),
				fmt.Sprintf("export %s=\"$(cat %s)\" where Claude Code starts (e.g. ~/.profile), or run `sepad install --transport http` again", api.SecretEnv, api.SecretPath(home)))
			continue
		}
		status, err := probe(t.url, auth)
		switch {
		case err != nil:
			d.fail(fmt.Sprintf("the http hook posts to %s, and nothing answers there: %v", t.url, err),
				"start the daemon with that address: `sepad run --http "+hostOf(t.url)+"`, or reinstall with the daemon's --url")
		case status == http.StatusUnauthorized:
			d.fail(fmt.Sprintf("the daemon at %s refuses the secret in $%s (401): every event would be lost", t.url, api.SecretEnv),
				fmt.Sprintf("export %s=\"$(cat %s)\" (the secret of the daemon's --home) and restart Claude Code", api.SecretEnv, api.SecretPath(home)))
		case status != http.StatusOK:
			d.fail(fmt.Sprintf("the daemon at %s answered %d", t.url, status), "look at its log")
		default:
			d.ok("the http hook's daemon answers at %s and accepts the secret", t.url)
		}
	}
}

// interpolate fills an http handler's header value as Claude Code does:
// $NAME and ${NAME} from the environment when allowed lists NAME, "" when
// not. It says what would go wrong ("" when nothing).
func interpolate(v string, allowed []string) (string, string) {
	if v == "" {
		return "", "it sends no Authorization header"
	}
	var problem string
	out := os.Expand(v, func(name string) string {
		if !slices.Contains(allowed, name) {
			problem = fmt.Sprintf("its header names $%s, which allowedEnvVars does not list: Claude Code sends it empty", name)
			return ""
		}
		val := os.Getenv(name)
		if val == "" && problem == "" {
			problem = fmt.Sprintf("$%s is not set in this environment: Claude Code started from it sends an empty secret", name)
		}
		return val
	})
	return out, problem
}

// probe GETs /healthz at the host of a hook URL with the Authorization
// header and returns the status.
func probe(hookURL, auth string) (int, error) {
	u := strings.TrimSuffix(hookURL, "/v1/hook") + "/healthz"
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", auth)
	c := &http.Client{Timeout: 2 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

func hostOf(u string) string {
	h, _, _ := strings.Cut(strings.TrimPrefix(u, "http://"), "/")
	return h
}
